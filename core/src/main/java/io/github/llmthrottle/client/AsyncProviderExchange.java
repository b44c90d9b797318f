package io.github.llmthrottle.client;

import java.util.concurrent.CompletableFuture;

/**
 * One attempt of an HTTP call in an adapter's non-blocking HTTP library (a reactive
 * {@code WebClient}'s connector): sends the request once and completes with the response,
 * whatever its status, without holding the caller's thread. The call pipeline starts it
 * once per admitted attempt ({@link ThrottledClient#exchangeAsync}), and reads the body
 * of a response it settles from whole (JSON, an error) through {@link #readBody}; a
 * streamed body is the adapter's to pass on, chunk by chunk
 * ({@link ThrottledResponse#chunkRead}).
 *
 * @param <R> the adapter's response type; its {@link ProviderResponse#body()} is not read
 * by the asynchronous pipeline
 */
public interface AsyncProviderExchange<R extends ProviderResponse> {

    /**
     * Sends the request once. The attempt's {@code llm.throttle.attempt} observation is
     * current while this runs, so that the HTTP library's own observation of the exchange
     * nests in it (a reactive library reads it from the thread when it starts, into its
     * Reactor context).
     * @return the response, or the I/O error (retried as such); cancelling it cancels the
     * exchange
     */
    CompletableFuture<R> execute();

    /**
     * Whether this adapter can send an attempt elsewhere
     * ({@link #execute(ProviderTarget)}), as the deployments of a model need.
     * @return whether {@link #execute(ProviderTarget)} is supported
     */
    default boolean canRedirect() {
        return false;
    }

    /**
     * Sends the request once to one deployment of its model: to the target's URI, with
     * the target's headers set (replacing the request's of the same name).
     * @param target where the attempt goes
     * @return the response, or the I/O error (retried as such)
     */
    default CompletableFuture<R> execute(ProviderTarget target) {
        throw new UnsupportedOperationException("This adapter cannot send a request to deployment "
                + target.deployment() + "; it sends every request where the request says");
    }

    /**
     * Reads the body of {@code response}, up to {@code limit} bytes (the rest discarded),
     * then releases the response.
     * @param response the response
     * @param limit the most bytes to keep
     * @return the bytes, or the I/O error that cut the body; cancelling it releases the
     * response
     */
    CompletableFuture<byte[]> readBody(R response, int limit);

}
