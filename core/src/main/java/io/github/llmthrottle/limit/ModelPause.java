package io.github.llmthrottle.limit;

import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.time.Nanos;
import org.jspecify.annotations.Nullable;

/**
 * The model-wide pause of one {@link ModelLimiter} after a 429, and the spread-out
 * release after it. {@link ModelLimiter#pause(java.time.Duration)} holds every call of
 * the model until the server's time; an earlier end than a pause already in force changes
 * nothing. When the pause ends, waiting calls are admitted one at a time, spaced by 60 s
 * / requests-per-minute (between 10 ms and 1 s; 100 ms without a request limit), until
 * the queue has drained: the calls that piled up during the pause do not hit the provider
 * all in the same instant.
 *
 * <p>
 * Times are nanoseconds of the limiter's monotonic clock. Not thread-safe: the owning
 * {@link ModelLimiter} guards it with its lock.
 */
final class ModelPause {

    private static final long MINUTE_NANOS = TimeUnit.MINUTES.toNanos(1);

    private static final long SPACING_WITHOUT_REQUEST_LIMIT = TimeUnit.MILLISECONDS.toNanos(100);

    private static final long MIN_SPACING = TimeUnit.MILLISECONDS.toNanos(10);

    private static final long MAX_SPACING = TimeUnit.SECONDS.toNanos(1);

    private long until = Long.MIN_VALUE;

    /** Whether calls are being released one at a time after a pause. */
    private boolean spacingOut;

    /** While spacing out, when the next call may go. */
    private long nextRelease = Long.MIN_VALUE;

    /**
     * Holds every call until {@code until}, starting a new spread-out release after it;
     * an earlier time than a pause already in force changes nothing.
     */
    void extendTo(long until) {
        if (until > this.until) {
            this.until = until;
            this.spacingOut = true;
            this.nextRelease = Long.MIN_VALUE;
        }
    }

    /** Ends a pause in force and the spread-out release after it. */
    void cancel(long now) {
        if (this.until > now) {
            this.until = now;
        }
        this.spacingOut = false;
        this.nextRelease = Long.MIN_VALUE;
    }

    /** Whether the pause holds calls at {@code now}. */
    boolean holds(long now) {
        return now < this.until;
    }

    /** When the last pause ends (or ended), {@link Long#MIN_VALUE} if there was none. */
    long end() {
        return this.until;
    }

    /**
     * Whether the spread-out release after a pause holds the next call at {@code now}.
     */
    boolean spacingHolds(long now) {
        return this.spacingOut && now < this.nextRelease;
    }

    /** While spacing out, when the next call may go. */
    long nextRelease() {
        return this.nextRelease;
    }

    /**
     * Records that a call was admitted at {@code now}: while spacing out, the next one
     * waits one spacing.
     * @param requestsPerMinute the request limit in force, {@code null} for none
     */
    void admitted(long now, @Nullable Long requestsPerMinute) {
        if (this.spacingOut) {
            this.nextRelease = Nanos.saturatedAdd(now, spacing(requestsPerMinute));
        }
    }

    /**
     * Records that the queue is empty: once the pause is over, so is the spread-out
     * release.
     */
    void drained(long now) {
        if (now >= this.until) {
            this.spacingOut = false;
        }
    }

    /**
     * How long a call arriving at {@code now} would wait for the pause and the spacing
     * after it.
     */
    long remainingNanos(long now) {
        long wait = (this.until > now) ? Nanos.saturatedSubtract(this.until, now) : 0;
        if (this.spacingOut && this.nextRelease > now) {
            wait = Math.max(wait, Nanos.saturatedSubtract(this.nextRelease, now));
        }
        return wait;
    }

    /**
     * The time between two calls released after a pause.
     * @param requestsPerMinute the request limit in force, {@code null} for none
     */
    static long spacing(@Nullable Long requestsPerMinute) {
        if (requestsPerMinute == null) {
            return SPACING_WITHOUT_REQUEST_LIMIT;
        }
        return Math.max(MIN_SPACING, Math.min(MAX_SPACING, MINUTE_NANOS / requestsPerMinute));
    }

}
