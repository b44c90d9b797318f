package io.github.llmthrottle.limit;

import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.store.TokenBucket;
import io.github.llmthrottle.time.Nanos;
import org.jspecify.annotations.Nullable;

/**
 * The limits that govern one {@link ModelLimiter}'s buckets, and their calibration from
 * the provider's rate-limit headers.
 *
 * <p>
 * {@link #apply(RateLimitSnapshot, Instant)} applies the provider's headers: a
 * {@code -limit} lower than the configured limit (or reported where none is configured)
 * governs until {@link #configure(ModelLimits)}; a {@code -remaining} lower than the
 * local bucket pulls the bucket down to it. The provider's numbers never raise a bucket
 * or a limit. A token value that is a multiple of 1000 is taken as the least it can mean,
 * 500 less (Anthropic rounds token remaining values to the nearest thousand), and the
 * remaining value is aged by the refill since the response was observed. The rule is
 * local = min(local, least the provider can hold): the provider's remaining already
 * includes the reservations of every call it has seen start, so subtracting the local
 * in-flight reservations would count those twice when the provider reports after it saw
 * them (as it does when its headers come with the answer); calls admitted locally that
 * the provider has not seen yet are briefly forgotten, and the next response corrects
 * that. The combined {@code tokens} headers (OpenAI TPM) become a
 * {@link Dimension#TOKENS} bucket that each attempt draws input plus output tokens from,
 * but only when the provider reports no separate input and output limits: Anthropic's
 * {@code tokens} headers repeat the most restrictive of its separate limits and would
 * only double-charge.
 *
 * <p>
 * Why the least a rounded value can mean, not the nearest or the most: the local bucket
 * drifts above the provider's when the provider's bucket is full and loses refill that
 * the local bucket counts (the calls of a burst on their way while the provider's bucket
 * is still full), or when something else spends from the provider's bucket. A pull-down
 * that let the local bucket hold the rounding's 500 above the provider's value let such a
 * drift of up to 1000 tokens stand until a 429 corrected it. Taken at its least, a
 * rounded value leaves the local bucket above the provider's by at most the calls the
 * provider had not seen yet. The price is a level, not a rate: the local bucket may sit
 * up to 1000 tokens below the provider's, which then keeps that much unspent while both
 * are below their capacities (once; both refill at the same rate), a second of refill at
 * 60,000 a minute.
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
     * reported, of which only the configured utilization is admitted.
     */
    @Nullable Long effectiveLimit(Dimension dimension) {
        Long full = fullLimit(dimension);
        return (full != null) ? this.configured.admitted(full) : null;
    }

    /** The configured or provider-reported limit, before utilization. */
    private @Nullable Long fullLimit(Dimension dimension) {
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
     * @param now the wall-clock time now, to age the snapshot by
     */
    void apply(RateLimitSnapshot snapshot, Instant now) {
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
        pullDown(Dimension.REQUESTS, snapshot.requestsRemaining(), elapsed);
        pullDown(Dimension.INPUT_TOKENS, snapshot.inputTokensRemaining(), elapsed);
        pullDown(Dimension.OUTPUT_TOKENS, snapshot.outputTokensRemaining(), elapsed);
        if (combinedOnly) {
            pullDown(Dimension.TOKENS, snapshot.tokensRemaining(), elapsed);
        }
    }

    private void serverLimit(Dimension dimension, @Nullable Long limit) {
        if (limit != null && limit > 0 && limit <= ModelLimits.MAX_PER_MINUTE) {
            this.serverLimits.put(dimension, limit);
        }
    }

    /**
     * A count the provider reported, or {@code null} when it is above
     * {@link ModelLimits#MAX_PER_MINUTE}: no provider meters that much a minute, and such
     * a value would overflow the arithmetic of the shared buckets.
     */
    private static @Nullable Long plausible(@Nullable Long count) {
        return (count != null && count <= ModelLimits.MAX_PER_MINUTE) ? count : null;
    }

    private void learnBurst(Dimension dimension, @Nullable Long remaining, @Nullable Instant reset,
            RateLimitSnapshot snapshot) {
        // the provider's bucket refills at the rate it reports
        Long limit = this.serverLimits.get(dimension);
        this.burst.learn(dimension, (limit != null) ? limit : effectiveLimit(dimension), plausible(remaining), reset,
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

    private void pullDown(Dimension dimension, @Nullable Long remaining, long elapsed) {
        TokenBucket bucket = this.buckets.get(dimension);
        Long reported = plausible(remaining);
        if (bucket == null || reported == null) {
            return;
        }
        long refilled = (long) Math.min((double) bucket.capacity(),
                (double) bucket.capacity() * elapsed / MINUTE_NANOS);
        // with a utilization below 1, the share of the limit not admitted is kept
        // unspent at the provider too
        Long full = fullLimit(dimension);
        long margin = (full != null) ? full - this.configured.admitted(full) : 0;
        bucket.limitTo(Dimension.saturatedAdd(Math.max(0, least(dimension, reported) - margin), refilled));
    }

    /**
     * The least the provider can hold when it reports {@code remaining}: a token value
     * rounded to the nearest thousand may stand for 500 less.
     */
    static long least(Dimension dimension, long remaining) {
        boolean rounded = dimension != Dimension.REQUESTS && remaining % 1000 == 0;
        return Math.max(0, rounded ? remaining - ROUNDING_SLACK : remaining);
    }

}
