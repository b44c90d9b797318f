package io.github.llmthrottle.limit;

import java.util.concurrent.atomic.AtomicBoolean;

import io.github.llmthrottle.provider.RateLimitSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * The {@link Permit} of an attempt a {@link ModelLimiter} admitted: its
 * {@link Reservation} in the buckets and its slot in the {@link AdaptiveConcurrency}.
 * Settling and releasing change them with the limiter's lock held and let the limiter
 * admit whoever can go next.
 */
final class LimiterPermit implements Permit {

    private final ModelLimiter limiter;

    private final Reservation reservation;

    private final AdaptiveConcurrency concurrency;

    private final SlowStart slowStart;

    private final long admittedAt;

    private final int inFlightAtAdmission;

    /** Set once, by the first release (or revocation): later ones do nothing. */
    private final AtomicBoolean released = new AtomicBoolean();

    /**
     * Creates the permit of an attempt admitted at {@code admittedAt}.
     * @param limiter the limiter that admitted it
     * @param reservation what it took from the buckets
     * @param concurrency where it holds a slot
     * @param slowStart told how the attempt ended
     * @param admittedAt when it was admitted, in nanoseconds of the limiter's clock
     * @param inFlightAtAdmission the calls in flight when it was admitted, itself
     * included
     */
    LimiterPermit(ModelLimiter limiter, Reservation reservation, AdaptiveConcurrency concurrency, SlowStart slowStart,
            long admittedAt, int inFlightAtAdmission) {
        this.limiter = limiter;
        this.reservation = reservation;
        this.concurrency = concurrency;
        this.slowStart = slowStart;
        this.admittedAt = admittedAt;
        this.inFlightAtAdmission = inFlightAtAdmission;
    }

    @Override
    public void settle(long inputTokens, long outputTokens) {
        settle(inputTokens, outputTokens, null);
    }

    @Override
    public void settle(long inputTokens, long outputTokens, @Nullable RateLimitSnapshot settledHeaders) {
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException(
                    "Token counts must not be negative: input=" + inputTokens + ", output=" + outputTokens);
        }
        this.limiter.update((now) -> {
            this.reservation.settle(inputTokens, outputTokens, this.limiter.gaveBack);
            this.limiter.applyHeaders(settledHeaders, now);
        });
    }

    @Override
    public void release(Outcome outcome) {
        if (this.released.compareAndSet(false, true)) {
            this.limiter.update((now) -> {
                this.concurrency.release(this.admittedAt, now, this.inFlightAtAdmission, outcome);
                this.slowStart.released(now, outcome);
            });
        }
    }

    /**
     * Undoes the admission of an attempt that never went out (its caller left the queue
     * before it saw the permit). Called with the limiter's lock held.
     */
    void revoke() {
        if (this.released.compareAndSet(false, true)) {
            this.concurrency.revoke();
            this.reservation.cancel(this.limiter.gaveBack);
        }
    }

}
