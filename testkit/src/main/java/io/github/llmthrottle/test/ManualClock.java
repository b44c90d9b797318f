package io.github.llmthrottle.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that only moves when told to. Give it to
 * {@link LlmSimulator.Builder#clock(Clock)} to test bucket refill, reset headers and
 * outages without sleeping. Thread-safe.
 */
public final class ManualClock extends Clock {

    private final AtomicLong nanos;

    /**
     * Creates a clock that starts at the given instant.
     * @param start the first instant
     */
    public ManualClock(Instant start) {
        this.nanos = new AtomicLong(
                Math.addExact(Math.multiplyExact(start.getEpochSecond(), 1_000_000_000L), start.getNano()));
    }

    /**
     * Creates a clock that starts at an ISO-8601 instant such as
     * {@code 2023-09-29T16:26:37Z}.
     * @param instant the first instant
     * @return the clock
     */
    public static ManualClock at(String instant) {
        return new ManualClock(Instant.parse(instant));
    }

    /**
     * Moves the clock forward.
     * @param duration how far, not negative
     */
    public void advance(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("A clock cannot go back");
        }
        this.nanos.addAndGet(duration.toNanos());
    }

    @Override
    public Instant instant() {
        long n = this.nanos.get();
        return Instant.ofEpochSecond(Math.floorDiv(n, 1_000_000_000L), Math.floorMod(n, 1_000_000_000L));
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

}
