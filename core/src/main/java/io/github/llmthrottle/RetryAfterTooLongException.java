package io.github.llmthrottle;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when the provider asks for a wait longer than
 * {@code llm.throttle.retry.max-retry-after}: the call fails at once (or is routed to a
 * fallback) instead of sleeping.
 */
public class RetryAfterTooLongException extends LlmThrottleException {

    public RetryAfterTooLongException(String client, String model, Duration retryAfter, Duration maxRetryAfter,
            int status) {
        this(client, model, retryAfter, maxRetryAfter, status, null);
    }

    public RetryAfterTooLongException(String client, String model, Duration retryAfter, Duration maxRetryAfter,
            int status, @Nullable Throwable cause) {
        this(client, model, retryAfter, maxRetryAfter, status, cause, null);
    }

    public RetryAfterTooLongException(String client, String model, Duration retryAfter, Duration maxRetryAfter,
            int status, @Nullable Throwable cause, @Nullable String requestId) {
        super("Provider asked " + describe(client, model) + " to wait " + format(retryAfter) + " (HTTP " + status
                + "), longer than max-retry-after " + format(maxRetryAfter), client, model, retryAfter, cause,
                requestId);
    }

    @Override
    public RejectionReason getRejectionReason() {
        return RejectionReason.RETRY_AFTER_TOO_LONG;
    }

}
