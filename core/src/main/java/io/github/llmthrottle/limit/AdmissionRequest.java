package io.github.llmthrottle.limit;

import java.time.Duration;
import java.util.function.LongSupplier;

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
 * @param recount estimates the input tokens again while the call waits, when the estimate
 * may fall (the prompt's prefix has since been written to the provider's cache), or
 * {@code null} when it cannot change
 */
public record AdmissionRequest(Priority priority, @Nullable String tenant, long inputTokens, long outputTokens,
        @Nullable Duration maxWait, @Nullable LongSupplier recount) {

    /**
     * A request whose estimate does not change while it waits.
     * @param priority priority in the admission queue
     * @param tenant tenant whose quota also applies, or {@code null}
     * @param inputTokens estimated input tokens
     * @param outputTokens output tokens to reserve
     * @param maxWait longest wait for admission, or {@code null} for the limiter's
     * default
     */
    public AdmissionRequest(Priority priority, @Nullable String tenant, long inputTokens, long outputTokens,
            @Nullable Duration maxWait) {
        this(priority, tenant, inputTokens, outputTokens, maxWait, null);
    }

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
        return new AdmissionRequest(this.priority, this.tenant, this.inputTokens, this.outputTokens, maxWait,
                this.recount);
    }

    /**
     * This request asking for other token counts.
     * @param inputTokens input tokens
     * @param outputTokens output tokens
     * @return the request
     */
    public AdmissionRequest withTokens(long inputTokens, long outputTokens) {
        return new AdmissionRequest(this.priority, this.tenant, inputTokens, outputTokens, this.maxWait, this.recount);
    }

    /**
     * This request with its input estimated again, when that gives fewer tokens: a call
     * queued before its prompt's prefix was cached reserves only what the provider will
     * now count.
     * @return the request, with fewer input tokens or as it is
     */
    public AdmissionRequest recounted() {
        if (this.recount == null) {
            return this;
        }
        long now = this.recount.getAsLong();
        if (now < 0 || now >= this.inputTokens) {
            return this;
        }
        return new AdmissionRequest(this.priority, this.tenant, now, this.outputTokens, this.maxWait, this.recount);
    }

}
