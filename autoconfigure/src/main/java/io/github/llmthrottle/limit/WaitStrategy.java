package io.github.llmthrottle.limit;

import java.util.concurrent.locks.Condition;

/**
 * How a call waiting for admission waits: the only place the admission queue blocks. The real
 * strategy, {@link #CONDITION}, waits on the condition (virtual-thread friendly, never
 * {@code synchronized}); tests pass one that advances or polls a fake clock instead, so that the
 * queue's timing runs on the same clock as its buckets.
 */
@FunctionalInterface
public interface WaitStrategy {

    /** Waits on the condition for real time. */
    WaitStrategy CONDITION = (condition, nanos) -> {
        if (nanos > 0) {
            condition.awaitNanos(nanos);
        }
    };

    /**
     * Waits until {@code condition} is signalled or about {@code nanos} have passed on the
     * limiter's clock, whichever comes first. Called with the condition's lock held, like
     * {@link Condition#awaitNanos(long)}; may return early (the caller re-checks its state).
     * @param condition the waiting call's condition
     * @param nanos longest wait in nanoseconds
     * @throws InterruptedException if the thread is interrupted
     */
    void await(Condition condition, long nanos) throws InterruptedException;

}
