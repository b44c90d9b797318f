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

    @Override
    public RejectionReason getRejectionReason() {
        return RejectionReason.MAX_WAIT;
    }

}
