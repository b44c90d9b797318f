package io.github.llmthrottle.time;

import java.time.Duration;
import java.time.Instant;

/**
 * Arithmetic on times and durations counted in nanoseconds, as
 * {@link TimeSource#nanoTime()} counts them. Sums and differences saturate at
 * {@link Long#MIN_VALUE} and {@link Long#MAX_VALUE} instead of overflowing, so that "wait
 * forever" stays forever and a deadline never wraps round into the past; conversions from
 * {@link Duration} and {@link Instant} saturate the same way. Code that waits keeps its
 * times in nanoseconds of the monotonic clock and converts at its edge, where instants
 * come in or go out.
 */
public final class Nanos {

    private Nanos() {
    }

    /**
     * {@code a + b}, or the bound the exact sum lies beyond.
     * @param a a time or duration in nanoseconds
     * @param b a duration in nanoseconds
     * @return the saturated sum
     */
    public static long saturatedAdd(long a, long b) {
        long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return (a < 0) ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return sum;
    }

    /**
     * {@code a - b}, or the bound the exact difference lies beyond.
     * @param a a time in nanoseconds
     * @param b an earlier (or later) time in nanoseconds
     * @return the saturated difference
     */
    public static long saturatedSubtract(long a, long b) {
        long difference = a - b;
        if (((a ^ b) & (a ^ difference)) < 0) {
            return (a < 0) ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return difference;
    }

    /**
     * A duration in nanoseconds.
     * @param duration the duration
     * @return its nanoseconds, or {@link Long#MAX_VALUE} ({@link Long#MIN_VALUE}) for a
     * duration too long (too negative) to count in a {@code long}
     */
    public static long of(Duration duration) {
        try {
            return duration.toNanos();
        }
        catch (ArithmeticException ex) {
            return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    /**
     * The nanoseconds from one instant to another, negative if {@code to} is before
     * {@code from}.
     * @param from the earlier instant
     * @param to the later instant
     * @return the saturated difference in nanoseconds
     */
    public static long between(Instant from, Instant to) {
        return of(Duration.between(from, to));
    }

}
