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

}
