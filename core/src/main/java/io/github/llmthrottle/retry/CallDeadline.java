package io.github.llmthrottle.retry;

import java.time.Duration;

import io.github.llmthrottle.time.Nanos;

/**
 * The limit an HTTP client puts on a whole call (OkHttp's call timeout, whose timer runs
 * from the start of the call through the wait for admission, every attempt and every
 * back-off), as the call pipeline plans its waits against it: a wait may end at most
 * three quarters into the timeout, so that the attempt after it keeps a quarter of the
 * timeout for the provider's response. A wait that cannot fit fails the call early, with
 * a message that says so, instead of the HTTP client cutting it without one.
 *
 * @param callTimeout the HTTP client's call timeout
 * @param waitsEndNanos when the waits must end, on the time source's {@code nanoTime()}
 */
public record CallDeadline(Duration callTimeout, long waitsEndNanos) {

    /**
     * The deadline of a call that starts now.
     * @param callTimeout the HTTP client's call timeout
     * @param startNanos the call's start, on the time source's {@code nanoTime()}
     * @return the deadline
     */
    public static CallDeadline of(Duration callTimeout, long startNanos) {
        return new CallDeadline(callTimeout, Nanos.saturatedAdd(startNanos, Nanos.of(callTimeout) / 4 * 3));
    }

    /**
     * How long a wait that starts now may last.
     * @param nowNanos now, on the time source's {@code nanoTime()}
     * @return the time left for waiting, zero when none is
     */
    public Duration leftForWaiting(long nowNanos) {
        return Duration.ofNanos(Math.max(0, Nanos.saturatedSubtract(this.waitsEndNanos, nowNanos)));
    }

    /**
     * Whether a wait that starts now ends in time.
     * @param wait the wait
     * @param nowNanos now, on the time source's {@code nanoTime()}
     * @return whether it ends by {@link #waitsEndNanos()}
     */
    public boolean fits(Duration wait, long nowNanos) {
        return Nanos.saturatedAdd(nowNanos, Nanos.of(wait)) <= this.waitsEndNanos;
    }

}
