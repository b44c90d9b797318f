package io.github.llmthrottle.client;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;

import io.github.llmthrottle.provider.Headers;

/**
 * One HTTP response of a provider, as an adapter presents its HTTP library's response to
 * the call pipeline: status and headers at once, the body as a stream read at most once.
 */
public interface ProviderResponse extends Closeable {

    /**
     * The HTTP status code.
     * @return the status
     */
    int status();

    /**
     * The response headers.
     * @return the headers
     */
    Headers headers();

    /**
     * The response body, read at most once.
     * @return the body
     * @throws IOException when it cannot be opened
     */
    InputStream body() throws IOException;

    /**
     * Releases the connection; the body can no longer be read.
     */
    @Override
    void close();

    /**
     * Ends a streamed body that its caller has neither read nor closed for longer than
     * the client's read timeout ({@link ThrottledClient#expireIdleStreams()}), its call
     * settled with what was read. By default it is closed; an adapter whose HTTP library
     * passes the body on itself (a reactive one) cancels it, and fails its caller's
     * subscription with an error that says the stream went idle.
     * @param idle how long nothing was read
     */
    default void expired(Duration idle) {
        close();
    }

    /**
     * The exception the HTTP library's own caller would see for this error response,
     * reported as the cause when retries of it are exhausted (for {@code RestClient},
     * Spring's {@code HttpServerErrorException}).
     * @param body the error body, already read
     * @return the exception
     */
    default Exception toException(byte[] body) {
        return new ProviderResponseException(status(), body);
    }

}
