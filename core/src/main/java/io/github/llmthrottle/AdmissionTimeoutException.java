package io.github.llmthrottle;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a call could not be admitted within its maximum wait
 * ({@code llm.throttle.queue.max-wait} or the annotation's {@code maxWait}).
 */
public class AdmissionTimeoutException extends LlmThrottleException {

    public AdmissionTimeoutException(String client, String model, Duration maxWait, @Nullable Duration retryAfter) {
        super("Not admitted within max-wait " + format(maxWait) + " for " + describe(client, model)
                + retryHint(retryAfter), client, model, retryAfter, null);
    }

    private AdmissionTimeoutException(String message, String client, String model, @Nullable Duration retryAfter) {
        super(message, client, model, retryAfter, null);
    }

    /**
     * A call that could not be admitted before its HTTP client would cut it: the wait for
     * admission counts against the client's call timeout (OkHttp's), which leaves too
     * little of it.
     * @param client the client name
     * @param model the model name
     * @param callTimeout the HTTP client's call timeout
     * @param retryAfter how long to wait before the call may be admitted, or {@code null}
     * @return the exception
     */
    public static AdmissionTimeoutException withinCallTimeout(String client, String model, Duration callTimeout,
            @Nullable Duration retryAfter) {
        return new AdmissionTimeoutException("Not admitted for " + describe(client, model)
                + " within the HTTP client's call timeout of " + format(callTimeout)
                + " (it counts the wait for admission and between retries; a quarter of it is kept for the response):"
                + " size it above llm.throttle.queue.max-wait plus the retries' waits" + retryHint(retryAfter), client,
                model, retryAfter);
    }

    @Override
    public RejectionReason getRejectionReason() {
        return RejectionReason.MAX_WAIT;
    }

}
