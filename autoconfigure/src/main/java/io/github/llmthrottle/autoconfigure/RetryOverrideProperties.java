package io.github.llmthrottle.autoconfigure;

import java.time.Duration;

import io.github.llmthrottle.retry.Jitter;
import org.jspecify.annotations.Nullable;

/**
 * Per-client retry overrides; every unset value inherits llm.throttle.retry.
 */
public class RetryOverrideProperties {

    /**
     * Retries after the first attempt.
     */
    private @Nullable Integer maxRetries;

    /**
     * First back-off delay.
     */
    private @Nullable Duration delay;

    /**
     * Factor by which the back-off delay grows with each retry.
     */
    private @Nullable Double multiplier;

    /**
     * Longest back-off delay.
     */
    private @Nullable Duration maxDelay;

    /**
     * Jitter applied to back-off delays: none, full, equal or decorrelated.
     */
    private @Nullable Jitter jitter;

    /**
     * Whether the server's wait wins over back-off.
     */
    private @Nullable Boolean respectRetryAfter;

    /**
     * Longest server wait honoured.
     */
    private @Nullable Duration maxRetryAfter;

    public @Nullable Integer getMaxRetries() {
        return this.maxRetries;
    }

    public void setMaxRetries(@Nullable Integer maxRetries) {
        this.maxRetries = maxRetries;
    }

    public @Nullable Duration getDelay() {
        return this.delay;
    }

    public void setDelay(@Nullable Duration delay) {
        this.delay = delay;
    }

    public @Nullable Double getMultiplier() {
        return this.multiplier;
    }

    public void setMultiplier(@Nullable Double multiplier) {
        this.multiplier = multiplier;
    }

    public @Nullable Duration getMaxDelay() {
        return this.maxDelay;
    }

    public void setMaxDelay(@Nullable Duration maxDelay) {
        this.maxDelay = maxDelay;
    }

    public @Nullable Jitter getJitter() {
        return this.jitter;
    }

    public void setJitter(@Nullable Jitter jitter) {
        this.jitter = jitter;
    }

    public @Nullable Boolean getRespectRetryAfter() {
        return this.respectRetryAfter;
    }

    public void setRespectRetryAfter(@Nullable Boolean respectRetryAfter) {
        this.respectRetryAfter = respectRetryAfter;
    }

    public @Nullable Duration getMaxRetryAfter() {
        return this.maxRetryAfter;
    }

    public void setMaxRetryAfter(@Nullable Duration maxRetryAfter) {
        this.maxRetryAfter = maxRetryAfter;
    }

}
