package io.github.llmthrottle.client;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

import io.github.llmthrottle.provider.Headers;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP request to a provider, as any HTTP library describes it, and its caller: what
 * the call pipeline reads to resolve the model, estimate tokens and admit the call.
 * Adapters build it without copying (the headers are a view of the library's own), with
 * the caller they found where the request entered them.
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
 * @param caller what the request's caller asks for: its priority, tenant, max-wait and
 * model
 */
public record ProviderRequest(String method, URI uri, Headers headers, byte[] body, boolean streaming,
        @Nullable Duration callTimeout, Caller caller) {

    /**
     * A request of a caller that asks for nothing ({@link Caller#DEFAULT}).
     * @param method the HTTP method
     * @param uri the full URI
     * @param headers the request headers
     * @param body the request body, empty when there is none
     * @param streaming whether the adapter knows the call asks for a stream of events
     * @param callTimeout how long from now the HTTP library lets the whole call take, or
     * {@code null} when it sets no such limit
     */
    public ProviderRequest(String method, URI uri, Headers headers, byte[] body, boolean streaming,
            @Nullable Duration callTimeout) {
        this(method, uri, headers, body, streaming, callTimeout, Caller.DEFAULT);
    }

    /**
     * A request of a caller that asks for nothing ({@link Caller#DEFAULT}), whose HTTP
     * library sets no limit on the whole call.
     * @param method the HTTP method
     * @param uri the full URI
     * @param headers the request headers
     * @param body the request body, empty when there is none
     * @param streaming whether the adapter knows the call asks for a stream of events
     */
    public ProviderRequest(String method, URI uri, Headers headers, byte[] body, boolean streaming) {
        this(method, uri, headers, body, streaming, null, Caller.DEFAULT);
    }

    public ProviderRequest {
        Objects.requireNonNull(caller, "caller");
        if (callTimeout != null && (callTimeout.isNegative() || callTimeout.isZero())) {
            throw new IllegalArgumentException("callTimeout must be positive, was " + callTimeout);
        }
    }

    /**
     * This request, made by {@code caller}.
     * @param caller what the caller asks for
     * @return the request
     */
    public ProviderRequest withCaller(Caller caller) {
        return new ProviderRequest(this.method, this.uri, this.headers, this.body, this.streaming, this.callTimeout,
                caller);
    }

}
