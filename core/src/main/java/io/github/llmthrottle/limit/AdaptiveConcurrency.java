package io.github.llmthrottle.limit;

import java.util.concurrent.TimeUnit;

import com.netflix.concurrency.limits.limit.AIMDLimit;
import org.jspecify.annotations.Nullable;

/**
 * The calls of one {@link ModelLimiter} in flight, and their adaptive limit: a Netflix
 * {@link AIMDLimit} for every model, starting at {@link ConcurrencyLimits#initial()}
 * (lowered to the ceiling if above it), with {@code max-concurrency} as its ceiling, or
 * {@link ConcurrencyLimits#max()} without one. A {@code DROPPED} release (429, 529,
 * timeout) shrinks it by 10 %, a {@code SUCCESS} release while at least half the limit is
 * in use grows it by one, {@code IGNORED} leaves it. Calls waiting for a slot wait in the
 * {@link AdmissionQueue}.
 *
 * <p>
 * Not thread-safe: the owning {@link ModelLimiter} guards it with its lock.
 */
final class AdaptiveConcurrency {

    private final ConcurrencyLimits defaults;

    private @Nullable Integer maxConcurrency;

    private AIMDLimit limit;

    private int inFlight;

    AdaptiveConcurrency(@Nullable Integer maxConcurrency) {
        this(maxConcurrency, ConcurrencyLimits.DEFAULTS);
    }

    AdaptiveConcurrency(@Nullable Integer maxConcurrency, ConcurrencyLimits defaults) {
        this.defaults = defaults;
        this.maxConcurrency = maxConcurrency;
        this.limit = limit(defaults.ceiling(maxConcurrency), defaults.initial());
    }

    /**
     * Changes {@code maxConcurrency} ({@code null}: back to the default ceiling), the new
     * limit starting where the old one had got to.
     */
    void resize(@Nullable Integer maxConcurrency) {
        int ceiling = this.defaults.ceiling(maxConcurrency);
        if (ceiling != ceiling()) {
            this.limit = limit(ceiling, this.limit.getLimit());
        }
        this.maxConcurrency = maxConcurrency;
    }

    /** Whether every slot is taken. */
    boolean isFull() {
        return this.inFlight >= this.limit.getLimit();
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
        if (outcome != Permit.Outcome.IGNORED) {
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

    /** The adaptive limit now. */
    int limit() {
        return this.limit.getLimit();
    }

    /** Its ceiling now: {@code max-concurrency}, or the default ceiling. */
    int ceiling() {
        return this.defaults.ceiling(this.maxConcurrency);
    }

    private static AIMDLimit limit(int ceiling, int initial) {
        return AIMDLimit.newBuilder()
            .initialLimit(Math.max(1, Math.min(ceiling, initial)))
            .minLimit(1)
            .maxLimit(ceiling)
            // LLM calls legitimately take minutes: latency alone must not shrink the
            // limit.
            .timeout(1, TimeUnit.DAYS)
            .build();
    }

}
