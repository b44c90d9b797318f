package io.github.llmthrottle.limit;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

import com.netflix.concurrency.limits.limit.AIMDLimit;
import org.jspecify.annotations.Nullable;

/**
 * The calls of one {@link ModelLimiter} in flight, and their adaptive limit. With
 * {@code maxConcurrency} set, a Netflix {@link AIMDLimit} (initial limit
 * min(maxConcurrency, 20)) caps the calls in flight: a {@code DROPPED} release shrinks
 * it, a {@code SUCCESS} release grows it, {@code IGNORED} leaves it. Calls waiting for a
 * slot wait in the {@link AdmissionQueue}. Without {@code maxConcurrency} it only counts
 * the calls in flight.
 *
 * <p>
 * Not thread-safe: the owning {@link ModelLimiter} guards it with its lock.
 */
final class AdaptiveConcurrency {

    private static final int INITIAL_LIMIT = 20;

    private @Nullable Integer max;

    private @Nullable AIMDLimit limit;

    private int inFlight;

    AdaptiveConcurrency(@Nullable Integer max) {
        this.max = max;
        this.limit = limit(max, null);
    }

    /**
     * Changes {@code maxConcurrency}, starting the new limit where the old one had got
     * to.
     */
    void resize(@Nullable Integer max) {
        if (!Objects.equals(this.max, max)) {
            this.max = max;
            this.limit = limit(max, this.limit);
        }
    }

    /** Whether every slot is taken. */
    boolean isFull() {
        return this.limit != null && this.inFlight >= this.limit.getLimit();
    }

    /**
     * Takes a slot for an admitted call.
     * @return the calls in flight, this one included
     */
    int admit() {
        return ++this.inFlight;
    }

    /**
     * Frees the slot of a call that went out, and feeds the limit with how it went.
     * @param admittedAt when the call was admitted, in nanoseconds of the limiter's clock
     * @param now the time now, on the same clock
     * @param inFlightAtAdmission the calls in flight when it was admitted, itself
     * included
     * @param outcome how it went
     */
    void release(long admittedAt, long now, int inFlightAtAdmission, Permit.Outcome outcome) {
        this.inFlight--;
        if (this.limit != null && outcome != Permit.Outcome.IGNORED) {
            this.limit.onSample(admittedAt, Math.max(0, now - admittedAt), inFlightAtAdmission,
                    outcome == Permit.Outcome.DROPPED);
        }
    }

    /** Frees the slot of a call that never went out, saying nothing to the limit. */
    void revoke() {
        this.inFlight--;
    }

    int inFlight() {
        return this.inFlight;
    }

    /** The adaptive limit now, {@code null} without {@code maxConcurrency}. */
    @Nullable Integer limit() {
        return (this.limit != null) ? this.limit.getLimit() : null;
    }

    private static @Nullable AIMDLimit limit(@Nullable Integer max, @Nullable AIMDLimit previous) {
        if (max == null) {
            return null;
        }
        int initial = (previous != null) ? previous.getLimit() : INITIAL_LIMIT;
        return AIMDLimit.newBuilder()
            .initialLimit(Math.max(1, Math.min(max, initial)))
            .minLimit(1)
            .maxLimit(max)
            // LLM calls legitimately take minutes: latency alone must not shrink the
            // limit.
            .timeout(1, TimeUnit.DAYS)
            .build();
    }

}
