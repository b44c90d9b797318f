package io.github.llmthrottle.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A time source for tests that only moves when told to: its sleeps advance it and are
 * recorded instead of waiting, and its wall clock and monotonic clock move together.
 */
public final class FakeClock extends Clock implements TimeSource {

    private final AtomicLong nanos;

    private final List<Duration> sleeps = new CopyOnWriteArrayList<>();

    public FakeClock(Instant start) {
        this.nanos = new AtomicLong(start.getEpochSecond() * 1_000_000_000L + start.getNano());
    }

    public static FakeClock at(String instant) {
        return new FakeClock(Instant.parse(instant));
    }

    public void advance(Duration duration) {
        this.nanos.addAndGet(duration.toNanos());
    }

    public List<Duration> sleeps() {
        return List.copyOf(this.sleeps);
    }

    @Override
    public void sleep(Duration duration) throws InterruptedException {
        if (Thread.currentThread().isInterrupted()) {
            throw new InterruptedException();
        }
        this.sleeps.add(duration);
        if (!duration.isNegative()) {
            advance(duration);
        }
    }

    @Override
    public Clock clock() {
        return this;
    }

    @Override
    public long nanoTime() {
        return this.nanos.get();
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
