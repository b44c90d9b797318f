package io.github.llmthrottle;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a call still failed with a retryable status or I/O error after
 * {@code llm.throttle.retry.max-retries} retries; the cause is the last failure.
 */
public class RetriesExhaustedException extends LlmThrottleException {

    public RetriesExhaustedException(String client, String model, int attempts, String lastFailure,
            @Nullable Duration retryAfter, Throwable cause) {
        this(client, model, attempts, lastFailure, retryAfter, cause, null);
    }

    public RetriesExhaustedException(String client, String model, int attempts, String lastFailure,
            @Nullable Duration retryAfter, Throwable cause, @Nullable String requestId) {
        super("Gave up on " + describe(client, model) + " after " + attempts + " attempts; last failure: " + lastFailure
                + retryHint(retryAfter), client, model, retryAfter, cause, requestId);
    }

}
