package io.github.llmthrottle.limit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;

/**
 * A {@link TimeSource} for tests with real threads, reading a {@link FakeClock}:
 * {@link #await(Condition, long)} waits on the condition for at most a millisecond of
 * real time and returns, so the caller re-reads the fake clock that the test moves.
 * Deadlines therefore pass only when the test advances the clock.
 */
final class PollingWaits implements TimeSource {

    private final FakeClock clock;

    PollingWaits(FakeClock clock) {
        this.clock = clock;
    }

    @Override
    public void await(Condition condition, long nanos) throws InterruptedException {
        condition.awaitNanos(TimeUnit.MILLISECONDS.toNanos(1));
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
