package io.github.llmthrottle.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * Per-minute limits of a model (or of models without their own entry), and its
 * concurrency ceiling. Unset means no local limit for that dimension.
 */
public class ModelLimitsProperties extends LlmThrottleProperties.RateLimits {

    /**
     * Ceiling of the model's adaptive concurrency limit (instead of
     * llm.throttle.concurrency.max); calls beyond the limit wait in the priority queue.
     */
    private @Nullable Integer maxConcurrency;

    public @Nullable Integer getMaxConcurrency() {
        return this.maxConcurrency;
    }

    public void setMaxConcurrency(@Nullable Integer maxConcurrency) {
        this.maxConcurrency = maxConcurrency;
    }

}
