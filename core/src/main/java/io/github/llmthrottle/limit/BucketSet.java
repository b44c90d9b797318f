package io.github.llmthrottle.limit;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.store.BucketStore;
import io.github.llmthrottle.store.TokenBucket;
import org.jspecify.annotations.Nullable;

/**
 * The buckets of one owner (a model, or a tenant on a model), one per limited dimension,
 * consumed all together or not at all. Not thread-safe: the owning {@link ModelLimiter}
 * guards it with its lock.
 */
final class BucketSet {

    private final BucketStore store;

    private final String keyPrefix;

    private final Map<Dimension, TokenBucket> buckets = new EnumMap<>(Dimension.class);

    BucketSet(BucketStore store, String keyPrefix) {
        this.store = store;
        this.keyPrefix = keyPrefix;
    }

    /** Sets the limit of one dimension, {@code null} removing it. */
    void limit(Dimension dimension, @Nullable Long limitPerMinute) {
        if (limitPerMinute == null) {
            this.buckets.remove(dimension);
        }
        else {
            this.buckets.put(dimension, this.store.bucket(this.keyPrefix + ":" + key(dimension), limitPerMinute));
        }
    }

    /**
     * Caps what the bucket of one dimension holds at once (the provider's burst), or
     * lifts the cap.
     * @param dimension the dimension
     * @param burst the most it may hold, {@code null} for a whole minute's worth
     */
    void burst(Dimension dimension, @Nullable Long burst) {
        TokenBucket bucket = this.buckets.get(dimension);
        if (bucket != null) {
            bucket.limitBurst((burst != null) ? burst : bucket.capacity());
        }
    }

    /**
     * Forgets every bucket of this set in its store (the set's name is no longer
     * tracked).
     */
    void forget() {
        for (Dimension dimension : Dimension.values()) {
            this.store.forget(this.keyPrefix + ":" + key(dimension));
        }
        this.buckets.clear();
    }

    @Nullable TokenBucket get(Dimension dimension) {
        return this.buckets.get(dimension);
    }

    /**
     * Whether every bucket of this set holds all it can hold again: nothing of it is
     * reserved or owed, so forgetting it loses nothing (an absent bucket starts full).
     */
    boolean isFull() {
        for (TokenBucket bucket : this.buckets.values()) {
            if (bucket.availableTokens() < bucket.burstCapacity()) {
                return false;
            }
        }
        return true;
    }

    /** Whether no dimension of this set is limited. */
    boolean isEmpty() {
        return this.buckets.isEmpty();
    }

    /**
     * Adds every bucket of this set, its dimension and what the attempt costs in it, to
     * the lists of one admission.
     */
    void collect(long input, long output, List<Dimension> dimensions, List<TokenBucket> buckets, List<Long> costs) {
        for (Map.Entry<Dimension, TokenBucket> entry : this.buckets.entrySet()) {
            dimensions.add(entry.getKey());
            buckets.add(entry.getValue());
            costs.add(entry.getKey().cost(input, output));
        }
    }

    /**
     * The first dimension whose whole capacity (a minute's worth of its limit) is less
     * than the attempt needs, or null. The provider's burst, learned from its headers, is
     * no reason to refuse a call: see {@link #withinBurst}.
     */
    @Nullable Dimension oversize(long input, long output) {
        for (Map.Entry<Dimension, TokenBucket> entry : this.buckets.entrySet()) {
            if (entry.getKey().cost(input, output) > entry.getValue().capacity()) {
                return entry.getKey();
            }
        }
        return null;
    }

    /**
     * The request as the buckets can take it at once: a call larger than the burst a
     * bucket is held at (but within its capacity) asks for a full bucket, and its
     * settlement takes the rest afterwards, so it waits for the bucket to fill instead of
     * being refused or waiting for ever.
     * @param request the request
     * @return the request, with its tokens lowered to the bursts where they exceed them
     */
    AdmissionRequest withinBurst(AdmissionRequest request) {
        long input = request.inputTokens();
        long output = request.outputTokens();
        TokenBucket in = this.buckets.get(Dimension.INPUT_TOKENS);
        if (in != null) {
            input = Math.min(input, in.burstCapacity());
        }
        TokenBucket out = this.buckets.get(Dimension.OUTPUT_TOKENS);
        if (out != null) {
            output = Math.min(output, out.burstCapacity());
        }
        TokenBucket tokens = this.buckets.get(Dimension.TOKENS);
        if (tokens != null && Dimension.TOKENS.cost(input, output) > tokens.burstCapacity()) {
            long burst = tokens.burstCapacity();
            output = Math.min(output, burst);
            input = Math.min(input, burst - output);
        }
        return (input == request.inputTokens() && output == request.outputTokens()) ? request
                : request.withTokens(input, output);
    }

    /** Nanoseconds until every bucket holds what the attempt needs. */
    long nanosToWait(long input, long output) {
        long wait = 0;
        for (Map.Entry<Dimension, TokenBucket> entry : this.buckets.entrySet()) {
            wait = Math.max(wait, entry.getValue().nanosToWaitFor(entry.getKey().cost(input, output)));
        }
        return wait;
    }

    /**
     * Takes what the attempt needs from every bucket, or from none: a partial consumption
     * is given back before returning {@code false} (or throwing).
     */
    boolean tryConsume(long input, long output, List<Charge> charges) {
        int mark = charges.size();
        boolean consumed = false;
        try {
            for (Map.Entry<Dimension, TokenBucket> entry : this.buckets.entrySet()) {
                Charge charge = new Charge(entry.getKey(), entry.getValue());
                if (!charge.bucket().tryConsume(charge.dimension().cost(input, output))) {
                    return false;
                }
                charges.add(charge);
            }
            consumed = true;
            return true;
        }
        finally {
            if (!consumed) {
                rollback(charges, mark, input, output);
            }
        }
    }

    static void rollback(List<Charge> charges, int from, long input, long output) {
        while (charges.size() > from) {
            Charge charge = charges.remove(charges.size() - 1);
            charge.bucket().refund(charge.dimension().cost(input, output));
        }
    }

    private static String key(Dimension dimension) {
        return switch (dimension) {
            case REQUESTS -> "requests";
            case INPUT_TOKENS -> "input-tokens";
            case OUTPUT_TOKENS -> "output-tokens";
            case TOKENS -> "tokens";
        };
    }

    /** What one admitted attempt took from one bucket, to settle or give back later. */
    record Charge(Dimension dimension, TokenBucket bucket) {
    }

}
