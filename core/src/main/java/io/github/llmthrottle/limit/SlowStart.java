package io.github.llmthrottle.limit;

/**
 * Cautious admission while the provider's remaining capacity is unknown: before its first
 * rate-limit headers, and again after an idle period. Providers may enforce a per-minute
 * limit over much shorter intervals (Anthropic: "a rate of 60 requests per minute may be
 * enforced as 1 request per second"), so a local bucket that holds a whole minute's worth
 * at start-up, or after a quiet spell, would send a burst the provider refuses. While
 * probing, one call goes at a time: the next waits until the one in flight has been
 * answered. The first response that carries rate-limit headers ends the probing:
 * {@link ProviderCalibration} then pulls the buckets down to what the provider has left
 * and caps them at the burst the provider can take ({@link BurstCapacity}). A successful
 * response without any headers ends it too (this provider does not report, there is
 * nothing to wait for); a refused one (429, 529, a timeout) does not.
 *
 * <p>
 * Idle means: nothing in flight and no response for {@link SlowStartSettings#idle()} (one
 * minute by default, after which a per-minute bucket has refilled whatever was spent, and
 * whatever else shares the API key may have spent it again: what was known is stale).
 *
 * <p>
 * Times are nanoseconds of the limiter's monotonic clock. Not thread-safe: the owning
 * {@link ModelLimiter} guards it with its lock.
 */
final class SlowStart {

    private final boolean enabled;

    private final long idleNanos;

    private boolean probing;

    /** When the provider last answered, {@link Long#MIN_VALUE} before it ever did. */
    private long lastAnswer = Long.MIN_VALUE;

    SlowStart(SlowStartSettings settings) {
        this.enabled = settings.enabled();
        this.idleNanos = settings.idle().toNanos();
        this.probing = this.enabled;
    }

    /**
     * Whether the next call has to wait for the answer of one in flight: probing, and a
     * call is out. Starts probing again after an idle period.
     * @param now the time now
     * @param inFlight the calls in flight
     * @return whether to hold the next call back
     */
    boolean holds(long now, int inFlight) {
        if (!this.enabled) {
            return false;
        }
        if (!this.probing && inFlight == 0 && this.lastAnswer != Long.MIN_VALUE
                && now - this.lastAnswer >= this.idleNanos) {
            this.probing = true;
        }
        return this.probing && inFlight > 0;
    }

    /** Records that a response's rate-limit headers were applied: probing is over. */
    void calibrated(long now) {
        this.probing = false;
        this.lastAnswer = now;
    }

    /**
     * Records how an admitted call ended: a success ends probing (had it carried headers,
     * {@link #calibrated} came first), a refusal (429, 529, timeout) keeps it.
     * @param now the time now
     * @param outcome how it ended
     */
    void released(long now, Permit.Outcome outcome) {
        if (outcome == Permit.Outcome.IGNORED) {
            return;
        }
        this.lastAnswer = now;
        if (outcome == Permit.Outcome.SUCCESS) {
            this.probing = false;
        }
    }

    /** Whether calls are admitted one at a time now. */
    boolean probing() {
        return this.enabled && this.probing;
    }

}
