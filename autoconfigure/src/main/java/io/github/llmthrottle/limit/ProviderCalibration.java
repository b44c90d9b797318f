package io.github.llmthrottle.limit;

import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.time.Nanos;
import org.jspecify.annotations.Nullable;

/**
 * The limits that govern one {@link ModelLimiter}'s buckets, and their calibration from
 * the provider's rate-limit headers.
 *
 * <p>
 * {@link #apply(RateLimitSnapshot, boolean, Instant)} applies the provider's headers: a
 * {@code -limit} lower than the configured limit (or reported where none is configured)
 * governs until {@link #configure(ModelLimits)}; a {@code -remaining} lower than the
 * local bucket pulls the bucket down to it. The provider's numbers never raise a bucket
 * or a limit. Tokens are compared with a slack of 500 when the provider's value is a
 * multiple of 1000 (Anthropic rounds token remaining values to the nearest thousand), and
 * the remaining value is aged by the refill since the response was observed. The rule is
 * local = min(local, serverRemaining): the provider's remaining already includes the
 * reservations of every call it has seen start, so subtracting the local in-flight
 * reservations would count those twice; calls admitted locally that the provider has not
 * seen yet are briefly forgotten, and the next response corrects that. The combined
 * {@code tokens} headers (OpenAI TPM) become a {@link Dimension#TOKENS} bucket that each
 * attempt draws input plus output tokens from, but only when the provider reports no
 * separate input and output limits: Anthropic's {@code tokens} headers repeat the most
 * restrictive of its separate limits and would only double-charge.
 *
 * <p>
 * The same headers tell the burst the provider can take ({@link BurstCapacity}): when its
 * bucket holds less than a minute's worth, the local buckets are capped at that burst, so
 * that a full local bucket (at start-up, after a quiet spell) never sends more at once
 * than the provider accepts.
 *
 * <p>
 * Not thread-safe: the owning {@link ModelLimiter} guards it with its lock.
 */
final class ProviderCalibration {

    private static final long MINUTE_NANOS = TimeUnit.MINUTES.toNanos(1);

    private static final long ROUNDING_SLACK = 500;

    private final BucketSet buckets;

    /**
     * Immutable; volatile so that {@link ModelLimiter#limits()} reads it without the
     * lock.
     */
    private volatile ModelLimits configured;

    private final Map<Dimension, Long> serverLimits = new EnumMap<>(Dimension.class);

    private @Nullable RateLimitSnapshot lastSnapshot;

    private final BurstCapacity burst = new BurstCapacity();

    /** Sets up {@code buckets} with the configured limits. */
    ProviderCalibration(ModelLimits configured, BucketSet buckets) {
        this.configured = configured;
        this.buckets = buckets;
        applyLimits();
    }

    /** The configured limits. */
    ModelLimits configured() {
        return this.configured;
    }

    /** Replaces the configured limits, forgetting those learned from the provider. */
    void configure(ModelLimits limits) {
        this.configured = limits;
        this.serverLimits.clear();
        this.burst.forget();
        applyLimits();
    }

    /**
     * The limit in force: the configured one, lowered by a lower one the provider
     * reported.
     */
    @Nullable Long effectiveLimit(Dimension dimension) {
        Long configured = this.configured.perMinute(dimension);
        Long server = this.serverLimits.get(dimension);
        if (configured == null) {
            return server;
        }
        return (server != null) ? Math.min(configured, server) : configured;
    }

    /** The limits in force, with the configured concurrency. */
    ModelLimits effectiveLimits() {
        return new ModelLimits(effectiveLimit(Dimension.REQUESTS), effectiveLimit(Dimension.INPUT_TOKENS),
                effectiveLimit(Dimension.OUTPUT_TOKENS), this.configured.maxConcurrency());
    }

    /** The most recently observed headers, {@code null} before the first. */
    @Nullable RateLimitSnapshot lastSnapshot() {
        return this.lastSnapshot;
    }

    /**
     * Applies the headers of one response (see the class description).
     * @param snapshot the headers
     * @param rejected whether the response was a 429, whose remaining 0 is taken as
     * exactly 0
     * @param now the wall-clock time now, to age the snapshot by
     */
    void apply(RateLimitSnapshot snapshot, boolean rejected, Instant now) {
        if (this.lastSnapshot == null || !snapshot.observedAt().isBefore(this.lastSnapshot.observedAt())) {
            this.lastSnapshot = snapshot;
        }
        boolean combinedOnly = snapshot.inputTokensLimit() == null && snapshot.inputTokensRemaining() == null
                && snapshot.outputTokensLimit() == null && snapshot.outputTokensRemaining() == null;
        serverLimit(Dimension.REQUESTS, snapshot.requestsLimit());
        serverLimit(Dimension.INPUT_TOKENS, snapshot.inputTokensLimit());
        serverLimit(Dimension.OUTPUT_TOKENS, snapshot.outputTokensLimit());
        if (combinedOnly) {
            serverLimit(Dimension.TOKENS, snapshot.tokensLimit());
        }
        learnBurst(Dimension.REQUESTS, snapshot.requestsRemaining(), snapshot.requestsReset(), snapshot);
        learnBurst(Dimension.INPUT_TOKENS, snapshot.inputTokensRemaining(), snapshot.inputTokensReset(), snapshot);
        learnBurst(Dimension.OUTPUT_TOKENS, snapshot.outputTokensRemaining(), snapshot.outputTokensReset(), snapshot);
        if (combinedOnly) {
            learnBurst(Dimension.TOKENS, snapshot.tokensRemaining(), snapshot.tokensReset(), snapshot);
        }
        applyLimits();
        // The time since the provider answered, on the wall clock its date was read from.
        long elapsed = Math.max(0, Nanos.between(snapshot.observedAt(), now));
        pullDown(Dimension.REQUESTS, snapshot.requestsRemaining(), elapsed, rejected);
        pullDown(Dimension.INPUT_TOKENS, snapshot.inputTokensRemaining(), elapsed, rejected);
        pullDown(Dimension.OUTPUT_TOKENS, snapshot.outputTokensRemaining(), elapsed, rejected);
        if (combinedOnly) {
            pullDown(Dimension.TOKENS, snapshot.tokensRemaining(), elapsed, rejected);
        }
    }

    private void serverLimit(Dimension dimension, @Nullable Long limit) {
        if (limit != null && limit > 0) {
            this.serverLimits.put(dimension, limit);
        }
    }

    private void learnBurst(Dimension dimension, @Nullable Long remaining, @Nullable Instant reset,
            RateLimitSnapshot snapshot) {
        // the provider's bucket refills at the rate it reports
        Long limit = this.serverLimits.get(dimension);
        this.burst.learn(dimension, (limit != null) ? limit : effectiveLimit(dimension), remaining, reset,
                snapshot.observedAt());
    }

    /**
     * The burst the provider can take in one dimension, learned from its headers, when it
     * is less than a minute's worth of the limit in force.
     */
    @Nullable Long burst(Dimension dimension) {
        return this.burst.of(dimension, effectiveLimit(dimension));
    }

    private void applyLimits() {
        for (Dimension dimension : Dimension.values()) {
            Long limit = effectiveLimit(dimension);
            this.buckets.limit(dimension, limit);
            if (limit != null) {
                this.buckets.burst(dimension, this.burst.of(dimension, limit));
            }
        }
    }

    private void pullDown(Dimension dimension, @Nullable Long remaining, long elapsed, boolean rejected) {
        TokenBucket bucket = this.buckets.get(dimension);
        if (bucket == null || remaining == null) {
            return;
        }
        boolean exhausted = rejected && remaining <= 0;
        long slack = (!exhausted && dimension != Dimension.REQUESTS && remaining % 1000 == 0) ? ROUNDING_SLACK : 0;
        long refilled = (long) Math.min((double) bucket.capacity(),
                (double) bucket.capacity() * elapsed / MINUTE_NANOS);
        bucket.limitTo(Dimension.saturatedAdd(Dimension.saturatedAdd(Math.max(remaining, 0), slack), refilled));
    }

}
