package io.github.llmthrottle.limit;

import java.time.Duration;

import io.github.llmthrottle.Priority;
import org.jspecify.annotations.Nullable;

/**
 * What one HTTP attempt asks of a model's limits: one request, its estimated input tokens
 * and the output tokens it reserves ({@code max_tokens}), with the caller's priority,
 * tenant and the longest it agrees to wait.
 *
 * @param priority priority in the admission queue
 * @param tenant tenant whose quota also applies, or {@code null}
 * @param inputTokens estimated input tokens
 * @param outputTokens output tokens to reserve
 * @param maxWait longest wait for admission, or {@code null} for the limiter's default
 * ({@code llm.throttle.queue.max-wait})
 */
public record AdmissionRequest(Priority priority, @Nullable String tenant, long inputTokens, long outputTokens,
        @Nullable Duration maxWait) {

    public AdmissionRequest {
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException(
                    "Token counts must not be negative: input=" + inputTokens + ", output=" + outputTokens);
        }
        if (maxWait != null && maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative: " + maxWait);
        }
    }

    /**
     * The same request with another longest wait.
     * @param maxWait longest wait for admission
     * @return the request
     */
    public AdmissionRequest withMaxWait(Duration maxWait) {
        return new AdmissionRequest(this.priority, this.tenant, this.inputTokens, this.outputTokens, maxWait);
    }

}
