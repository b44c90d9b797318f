package io.github.llmthrottle.store.redis;

import java.time.Duration;
import java.time.Instant;

import io.github.llmthrottle.time.Nanos;

/**
 * The units of time the scripts take and answer: microseconds since the epoch, as Redis
 * {@code TIME} gives them, and waits in microseconds.
 */
final class RedisTime {

    private RedisTime() {
    }

    /** A wait in microseconds as nanoseconds; a negative one (never) as the longest. */
    static long nanos(long micros) {
        if (micros < 0) {
            return Long.MAX_VALUE;
        }
        return (micros > Long.MAX_VALUE / 1000) ? Long.MAX_VALUE : micros * 1000;
    }

    /** An instant in microseconds since the epoch. */
    static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1000;
    }

    /** A duration in microseconds, none when negative. */
    static long micros(Duration duration) {
        return duration.isNegative() ? 0 : Nanos.of(duration) / 1000;
    }

}
