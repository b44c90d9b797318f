package io.github.llmthrottle.client;

import java.net.URI;
import java.time.Duration;

import io.github.llmthrottle.provider.Headers;
import org.jspecify.annotations.Nullable;

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
 * @param callTimeout how long from now the HTTP library lets the whole call take before
 * it cuts it (OkHttp's call timeout, whose timer counts the wait for admission and
 * between retries), or {@code null} when it sets no such limit: the pipeline then fails a
 * wait that cannot fit in it early, with a message that says so
 */
public record ProviderRequest(String method, URI uri, Headers headers, byte[] body, boolean streaming,
        @Nullable Duration callTimeout) {

    /**
     * A request whose HTTP library sets no limit on the whole call.
     * @param method the HTTP method
     * @param uri the full URI
     * @param headers the request headers
     * @param body the request body, empty when there is none
     * @param streaming whether the adapter knows the call asks for a stream of events
     */
    public ProviderRequest(String method, URI uri, Headers headers, byte[] body, boolean streaming) {
        this(method, uri, headers, body, streaming, null);
    }

    public ProviderRequest {
        if (callTimeout != null && (callTimeout.isNegative() || callTimeout.isZero())) {
            throw new IllegalArgumentException("callTimeout must be positive, was " + callTimeout);
        }
    }

}
