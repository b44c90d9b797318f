package io.github.llmthrottle.limit;

import java.time.Duration;

import io.github.llmthrottle.Priority;

/**
 * A concurrency slot of a model taken by the test itself, without a call: with a
 * concurrency limit of one, the calls the test starts wait for admission until it lets
 * go, however slow the machine, instead of racing a slow response of the server.
 */
public final class HeldSlot {

    private final Permit permit;

    private HeldSlot(Permit permit) {
        this.permit = permit;
    }

    /**
     * Takes a slot of {@code limiter} now, at normal priority, asking for no tokens.
     * @param limiter the model's limiter
     * @return the held slot
     * @throws InterruptedException if the thread is interrupted
     */
    public static HeldSlot take(ModelLimiter limiter) throws InterruptedException {
        return new HeldSlot(limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 0, 0, Duration.ZERO)));
    }

    /** Gives the slot back, as a call that neither succeeded nor failed. */
    public void release() {
        this.permit.release(Permit.Outcome.IGNORED);
    }

}
