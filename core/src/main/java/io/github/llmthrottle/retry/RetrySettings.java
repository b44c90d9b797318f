package io.github.llmthrottle.retry;

import java.time.Duration;
import java.util.Objects;

/**
 * How a client retries: the immutable form of {@code llm.throttle.retry.*}.
 *
 * @param maxRetries retries after the first attempt (so {@code maxRetries + 1} attempts
 * at most)
 * @param delay the first back-off
 * @param multiplier the back-off growth factor per retry, at least 1
 * @param maxDelay the longest back-off (server waits are not capped by it)
 * @param jitter how back-off delays are randomised
 * @param respectRetryAfter whether a server's wait replaces the back-off (it is then
 * never undercut); when {@code false} server waits are ignored entirely
 * @param maxRetryAfter the longest server wait honoured; a longer one fails the call at
 * once
 */
public record RetrySettings(int maxRetries, Duration delay, double multiplier, Duration maxDelay, Jitter jitter,
        boolean respectRetryAfter, Duration maxRetryAfter) {

    /**
     * The defaults: 4 retries, 500ms doubling up to 30s, full jitter, server waits up to
     * 60s.
     */
    public static final RetrySettings DEFAULTS = new RetrySettings(4, Duration.ofMillis(500), 2.0,
            Duration.ofSeconds(30), Jitter.FULL, true, Duration.ofSeconds(60));

    /**
     * Creates settings, checking each value. Configured values are checked under their
     * property names before they get here; these checks guard settings built in code,
     * which would otherwise count attempts wrongly (negative retries), retry back to back
     * (a zero, negative or NaN back-off), lose decorrelated jitter (a longest delay below
     * the first) or fail every server wait (a negative max-retry-after).
     * @throws IllegalArgumentException naming the first invalid field
     */
    public RetrySettings {
        if (maxRetries < 0) {
            throw new IllegalArgumentException("maxRetries must not be negative but was " + maxRetries);
        }
        if (delay == null || delay.isNegative() || delay.isZero()) {
            throw new IllegalArgumentException("delay must be positive but was " + delay);
        }
        if (Double.isNaN(multiplier) || Double.isInfinite(multiplier) || multiplier < 1.0) {
            throw new IllegalArgumentException(
                    "multiplier must be a finite number of at least 1 but was " + multiplier);
        }
        if (maxDelay == null || maxDelay.compareTo(delay) < 0) {
            throw new IllegalArgumentException(
                    "maxDelay must not be shorter than delay (" + delay + ") but was " + maxDelay);
        }
        Objects.requireNonNull(jitter, "jitter");
        if (maxRetryAfter == null || maxRetryAfter.isNegative()) {
            throw new IllegalArgumentException("maxRetryAfter must not be negative but was " + maxRetryAfter);
        }
    }

    /**
     * A copy with another number of retries.
     * @param maxRetries retries after the first attempt
     * @return the new settings
     */
    public RetrySettings withMaxRetries(int maxRetries) {
        return new RetrySettings(maxRetries, this.delay, this.multiplier, this.maxDelay, this.jitter,
                this.respectRetryAfter, this.maxRetryAfter);
    }

    /**
     * A copy with another jitter.
     * @param jitter how back-off delays are randomised
     * @return the new settings
     */
    public RetrySettings withJitter(Jitter jitter) {
        return new RetrySettings(this.maxRetries, this.delay, this.multiplier, this.maxDelay, jitter,
                this.respectRetryAfter, this.maxRetryAfter);
    }

    /**
     * A copy with another longest honoured server wait.
     * @param maxRetryAfter the longest server wait honoured
     * @return the new settings
     */
    public RetrySettings withMaxRetryAfter(Duration maxRetryAfter) {
        return new RetrySettings(this.maxRetries, this.delay, this.multiplier, this.maxDelay, this.jitter,
                this.respectRetryAfter, maxRetryAfter);
    }

}
