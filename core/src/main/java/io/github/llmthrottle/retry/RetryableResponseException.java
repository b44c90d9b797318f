package io.github.llmthrottle.retry;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by a {@link RetryEngine.Attempt} to say "this attempt failed and may be
 * retried". It carries the {@link Classification} the engine needs (the server's wait,
 * the metric reason) and the failure to report if retrying gives up: that failure becomes
 * the cause of {@link io.github.llmthrottle.RetriesExhaustedException}. The engine never
 * lets this exception escape {@link RetryEngine#execute}.
 */
public class RetryableResponseException extends RuntimeException {

    private final Classification classification;

    private final @Nullable String requestId;

    /**
     * Creates an exception for a retryable outcome.
     * @param classification the outcome, which must be {@link Classification#retryable()
     * retryable}
     * @param failure what to report as the cause if retrying gives up: the exception the
     * HTTP library's caller would have seen for the response (for {@code RestClient},
     * Spring's own {@code HttpServerErrorException}), or the I/O error
     */
    public RetryableResponseException(Classification classification, Throwable failure) {
        this(classification, failure, null);
    }

    /**
     * Creates an exception for a retryable response.
     * @param classification the outcome, which must be {@link Classification#retryable()
     * retryable}
     * @param failure what to report as the cause if retrying gives up
     * @param requestId the provider's request id of the response, or {@code null}
     */
    public RetryableResponseException(Classification classification, Throwable failure, @Nullable String requestId) {
        super("Retryable " + classification.describe(), failure, false, false);
        this.requestId = requestId;
        if (!classification.retryable()) {
            throw new IllegalArgumentException("Classification is not retryable: " + classification.describe());
        }
        this.classification = classification;
    }

    /**
     * The classification of the failed attempt.
     * @return the classification
     */
    public Classification getClassification() {
        return this.classification;
    }

    /**
     * The provider's request id of the failed response.
     * @return the request id, or {@code null}
     */
    public @Nullable String getRequestId() {
        return this.requestId;
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
