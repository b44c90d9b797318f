package io.github.llmthrottle.limit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.Condition;

import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;

/**
 * A {@link TimeSource} for single-threaded tests, reading a {@link FakeClock}: instead of
 * waiting, {@link #await(Condition, long)} moves the clock forward by the whole wait, as
 * if nothing had signalled the caller in the meantime.
 */
final class AdvancingWaits implements TimeSource {

    private final FakeClock clock;

    AdvancingWaits(FakeClock clock) {
        this.clock = clock;
    }

    @Override
    public void await(Condition condition, long nanos) throws InterruptedException {
        if (Thread.currentThread().isInterrupted()) {
            throw new InterruptedException();
        }
        this.clock.advance(Duration.ofNanos(nanos));
    }

    @Override
    public Instant instant() {
        return this.clock.instant();
    }

    @Override
    public long nanoTime() {
        return this.clock.nanoTime();
    }

    @Override
    public void sleep(Duration duration) throws InterruptedException {
        this.clock.sleep(duration);
    }

    @Override
    public Clock clock() {
        return this.clock;
    }

}
