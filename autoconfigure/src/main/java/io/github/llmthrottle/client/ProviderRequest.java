package io.github.llmthrottle.client;

import java.net.URI;

import io.github.llmthrottle.provider.Headers;

/**
 * One HTTP request to a provider, as any HTTP library describes it: what the call
 * pipeline reads to resolve the model, estimate tokens and find the tenant. Adapters
 * build it without copying (the headers are a view of the library's own).
 *
 * @param method the HTTP method
 * @param uri the full URI
 * @param headers the request headers
 * @param body the request body, empty when there is none
 * @param streaming whether the adapter knows the call asks for a stream of events (the
 * pipeline also reads {@code "stream": true} in the body and the response's content type)
 */
public record ProviderRequest(String method, URI uri, Headers headers, byte[] body, boolean streaming) {

}
