package io.github.llmthrottle.client;

import java.io.IOException;

/**
 * One attempt of an HTTP call in an adapter's HTTP library: sends the request once and
 * returns the response, whatever its status. The call pipeline calls it once per admitted
 * attempt ({@code ClientHttpRequestExecution.execute}, OkHttp's {@code Chain.proceed}, an
 * SDK's {@code HttpClient.execute}).
 *
 * @param <R> the adapter's response type
 */
@FunctionalInterface
public interface ProviderExchange<R extends ProviderResponse> {

    /**
     * Sends the request once.
     * @return the response
     * @throws IOException on an I/O error (retried as such)
     */
    R execute() throws IOException;

    /**
     * Whether this adapter can send an attempt elsewhere
     * ({@link #execute(ProviderTarget)}), as the deployments of a model need. An adapter
     * that cannot sends every attempt as the request says, under the model's own limiter
     * and circuit.
     * @return whether {@link #execute(ProviderTarget)} is supported
     */
    default boolean canRedirect() {
        return false;
    }

    /**
     * Sends the request once to one deployment of its model: to the target's URI, with
     * the target's headers set (replacing the request's of the same name).
     * @param target where the attempt goes
     * @return the response
     * @throws IOException on an I/O error (retried as such)
     */
    default R execute(ProviderTarget target) throws IOException {
        throw new UnsupportedOperationException("This adapter cannot send a request to deployment "
                + target.deployment() + "; it sends every request where the request says");
    }

}
