package io.github.llmthrottle.autoconfigure;

import java.time.Duration;

import io.github.llmthrottle.retry.Jitter;

/**
 * Retry and back-off settings ({@code llm.throttle.retry.*}), the defaults of every
 * client.
 */
public class RetryProperties {

    /**
     * Retries after the first attempt.
     */
    private int maxRetries = 4;

    /**
     * First back-off delay.
     */
    private Duration delay = Duration.ofMillis(500);

    /**
     * Factor by which the back-off delay grows with each retry.
     */
    private double multiplier = 2.0;

    /**
     * Longest back-off delay.
     */
    private Duration maxDelay = Duration.ofSeconds(30);

    /**
     * Jitter applied to back-off delays: none, full, equal or decorrelated.
     */
    private Jitter jitter = Jitter.FULL;

    /**
     * Whether the server's wait (retry-after-ms, retry-after, reset headers) wins over
     * back-off; it is never undercut.
     */
    private boolean respectRetryAfter = true;

    /**
     * Longest server wait honoured; a longer one fails at once (or routes to a fallback
     * model).
     */
    private Duration maxRetryAfter = Duration.ofSeconds(60);

    public int getMaxRetries() {
        return this.maxRetries;
    }

    public void setMaxRetries(int maxRetries) {
        this.maxRetries = maxRetries;
    }

    public Duration getDelay() {
        return this.delay;
    }

    public void setDelay(Duration delay) {
        this.delay = delay;
    }

    public double getMultiplier() {
        return this.multiplier;
    }

    public void setMultiplier(double multiplier) {
        this.multiplier = multiplier;
    }

    public Duration getMaxDelay() {
        return this.maxDelay;
    }

    public void setMaxDelay(Duration maxDelay) {
        this.maxDelay = maxDelay;
    }

    public Jitter getJitter() {
        return this.jitter;
    }

    public void setJitter(Jitter jitter) {
        this.jitter = jitter;
    }

    public boolean isRespectRetryAfter() {
        return this.respectRetryAfter;
    }

    public void setRespectRetryAfter(boolean respectRetryAfter) {
        this.respectRetryAfter = respectRetryAfter;
    }

    public Duration getMaxRetryAfter() {
        return this.maxRetryAfter;
    }

    public void setMaxRetryAfter(Duration maxRetryAfter) {
        this.maxRetryAfter = maxRetryAfter;
    }

}
