package io.github.llmthrottle.limit;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * A {@link WaitStrategy} for tests with real threads and a fake clock: waits on the condition for
 * at most a millisecond of real time and returns, so the caller re-reads the fake clock that the
 * test moves. Deadlines therefore pass only when the test advances the clock.
 */
final class PollingWaits implements WaitStrategy {

    @Override
    public void await(Condition condition, long nanos) throws InterruptedException {
        condition.awaitNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }

}
