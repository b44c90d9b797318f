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

    private RetriesExhaustedException(String message, String client, String model, @Nullable Duration retryAfter,
            Throwable cause, @Nullable String requestId) {
        super(message, client, model, retryAfter, cause, requestId);
    }

    /**
     * A call given up before a retry whose wait would outlast the HTTP client's call
     * timeout (OkHttp's, which counts the waits between retries): failing now says why,
     * where the HTTP client would cut the call without saying.
     * @param client the client name
     * @param model the model name
     * @param attempts the attempts made
     * @param lastFailure what the last attempt ended with
     * @param wait the wait before the retry that did not fit
     * @param callTimeout the HTTP client's call timeout
     * @param cause the last failure
     * @param requestId the provider's request id of the last response, or {@code null}
     * @return the exception
     */
    public static RetriesExhaustedException beforeCallTimeout(String client, String model, int attempts,
            String lastFailure, Duration wait, Duration callTimeout, Throwable cause, @Nullable String requestId) {
        return new RetriesExhaustedException("Gave up on " + describe(client, model) + " after " + attempts
                + " attempts: the next retry, in " + format(wait) + ", would outlast the HTTP client's call timeout of "
                + format(callTimeout) + " (a quarter of it is kept for the response; size it above"
                + " llm.throttle.queue.max-wait plus the retries' waits); last failure: " + lastFailure
                + retryHint(wait), client, model, wait, cause, requestId);
    }

}
