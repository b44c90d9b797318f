package io.github.llmthrottle.limit;

import java.time.Duration;
import java.util.concurrent.locks.Condition;

import io.github.llmthrottle.time.FakeClock;

/**
 * A {@link WaitStrategy} for single-threaded tests: instead of waiting, it moves the fake clock
 * forward by the whole wait, as if nothing had signalled the caller in the meantime.
 */
final class AdvancingWaits implements WaitStrategy {

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

}
