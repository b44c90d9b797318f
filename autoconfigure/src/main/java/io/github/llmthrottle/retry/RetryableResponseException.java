package io.github.llmthrottle.retry;

import java.nio.charset.Charset;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClientResponseException;

/**
 * Thrown by a {@link RetryEngine.Attempt} to say "this attempt failed and may be retried". It
 * carries the {@link Classification} the engine needs (the server's wait, the metric reason) and
 * the failure to report if retrying gives up: that failure becomes the cause of
 * {@link io.github.llmthrottle.RetriesExhaustedException}. The engine never lets this exception
 * escape {@link RetryEngine#execute}.
 */
public class RetryableResponseException extends RuntimeException {

    private final Classification classification;

    /**
     * Creates an exception for a retryable outcome.
     * @param classification the outcome, which must be {@link Classification#retryable()
     * retryable}
     * @param failure what to report as the cause if retrying gives up, for example the
     * {@link RestClientResponseException} for the response
     */
    public RetryableResponseException(Classification classification, Throwable failure) {
        super("Retryable " + classification.describe(), failure, false, false);
        if (!classification.retryable()) {
            throw new IllegalArgumentException("Classification is not retryable: " + classification.describe());
        }
        this.classification = classification;
    }

    /**
     * Creates an exception for a retryable response, with Spring's own
     * {@link HttpClientErrorException} or {@link HttpServerErrorException} (built from the status,
     * headers and body, exactly as {@code RestClient} would) as the failure.
     * @param classification the outcome, which must be retryable
     * @param status the response status
     * @param statusText the response status text
     * @param headers the response headers
     * @param body the response body
     * @param charset the body's charset, or {@code null}
     * @return the exception
     */
    public static RetryableResponseException forResponse(Classification classification, HttpStatusCode status,
            String statusText, HttpHeaders headers, byte[] body, @Nullable Charset charset) {
        RestClientResponseException failure = status.is4xxClientError()
                ? HttpClientErrorException.create(status, statusText, headers, body, charset)
                : HttpServerErrorException.create(status, statusText, headers, body, charset);
        return new RetryableResponseException(classification, failure);
    }

    /**
     * The classification of the failed attempt.
     * @return the classification
     */
    public Classification getClassification() {
        return this.classification;
    }

    /**
     * The failure to report if retrying gives up.
     * @return the failure
     */
    public Throwable getFailure() {
        Throwable cause = getCause();
        return (cause != null) ? cause : this;
    }

}
