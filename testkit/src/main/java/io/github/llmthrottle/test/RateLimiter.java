package io.github.llmthrottle.test;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.EstimationProbe;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.TokensInheritanceStrategy;
import org.jspecify.annotations.Nullable;

/**
 * The simulator's buckets: per API key and model, one continuously refilling Bucket4j
 * bucket per limited dimension (greedy refill of limit per minute; capacity = limit, or
 * the limit's worth of a shorter bucket window: {@code limit × window / 1 min}).
 * Admission is all or nothing across the dimensions of a request, under a
 * per-key-and-model lock that is never held while a response is produced.
 */
final class RateLimiter {

    private static final long NANOS_PER_MINUTE = Duration.ofMinutes(1).toNanos();

    private final TimeMeter meter;

    private final Function<String, ModelLimits> limits;

    private final Duration window;

    private final ConcurrentHashMap<Key, Buckets> buckets = new ConcurrentHashMap<>();

    RateLimiter(TimeMeter meter, Function<String, ModelLimits> limits) {
        this(meter, limits, Duration.ofMinutes(1));
    }

    /**
     * Buckets that hold {@code window}'s worth of each per-minute limit.
     */
    RateLimiter(TimeMeter meter, Function<String, ModelLimits> limits, Duration window) {
        this.meter = meter;
        this.limits = limits;
        this.window = window;
    }

    /**
     * Debits every dimension of {@code demand} (indexed by {@link Dimension#ordinal()})
     * or none.
     * @return {@code null} when admitted, else the binding rejection
     */
    @Nullable Rejection tryAdmit(Key key, long[] demand) {
        Buckets b = buckets(key);
        b.lock.lock();
        try {
            b.reconfigure(this.limits.apply(key.model()));
            Rejection worst = null;
            for (Dimension d : Dimension.values()) {
                Bucket bucket = b.get(d);
                long n = demand[d.ordinal()];
                if (bucket == null || n <= 0) {
                    continue;
                }
                long limit = b.limit(d);
                if (n > b.capacity(d)) {
                    return new Rejection(d, limit, bucket.getAvailableTokens(), n, Long.MAX_VALUE, true);
                }
                EstimationProbe probe = bucket.estimateAbilityToConsume(n);
                if (!probe.canBeConsumed()
                        && (worst == null || probe.getNanosToWaitForRefill() > worst.nanosToWait())) {
                    worst = new Rejection(d, limit, bucket.getAvailableTokens(), n, probe.getNanosToWaitForRefill(),
                            false);
                }
            }
            if (worst != null) {
                return worst;
            }
            for (Dimension d : Dimension.values()) {
                Bucket bucket = b.get(d);
                long n = demand[d.ordinal()];
                if (bucket != null && n > 0) {
                    // Checked above under the same lock and time only moves forward, so
                    // this fits.
                    bucket.consumeIgnoringRateLimits(n);
                }
            }
            return null;
        }
        finally {
            b.lock.unlock();
        }
    }

    /** Gives back tokens (capped at the capacity). */
    void refund(Key key, Dimension dimension, long tokens) {
        if (tokens > 0) {
            adjust(key, dimension, tokens);
        }
    }

    /** Takes tokens even if that drives the bucket negative. */
    void charge(Key key, Dimension dimension, long tokens) {
        if (tokens > 0) {
            adjust(key, dimension, -tokens);
        }
    }

    /**
     * Adds {@code delta} tokens to the bucket (capped at its capacity), or takes
     * {@code -delta}.
     */
    private void adjust(Key key, Dimension dimension, long delta) {
        Buckets b = buckets(key);
        b.lock.lock();
        try {
            Bucket bucket = b.get(dimension);
            if (bucket != null && delta > 0) {
                bucket.addTokens(delta);
            }
            else if (bucket != null) {
                bucket.consumeIgnoringRateLimits(-delta);
            }
        }
        finally {
            b.lock.unlock();
        }
    }

    Map<Dimension, Level> levels(Key key) {
        Buckets b = buckets(key);
        Map<Dimension, Level> result = new EnumMap<>(Dimension.class);
        b.lock.lock();
        try {
            b.reconfigure(this.limits.apply(key.model()));
            for (Dimension d : Dimension.values()) {
                Bucket bucket = b.get(d);
                if (bucket != null) {
                    long limit = b.limit(d);
                    long available = bucket.getAvailableTokens();
                    long missing = Math.max(0, b.capacity(d) - available);
                    long nanosToFull = (long) Math.ceil((double) missing * NANOS_PER_MINUTE / limit);
                    result.put(d, new Level(limit, available, nanosToFull));
                }
            }
        }
        finally {
            b.lock.unlock();
        }
        return result;
    }

    /** Forgets all buckets: the next request of every key and model finds them full. */
    void clear() {
        this.buckets.clear();
    }

    private Buckets buckets(Key key) {
        return this.buckets.computeIfAbsent(key, (k) -> new Buckets(this.meter, this.window));
    }

    enum Dimension {

        REQUESTS, INPUT_TOKENS, OUTPUT_TOKENS, TOKENS

    }

    record Key(String apiKey, String model) {
    }

    /** Why a request did not fit: the dimension that needs the longest wait. */
    record Rejection(Dimension dimension, long limit, long available, long requested, long nanosToWait,
            boolean neverFits) {
    }

    /** One bucket's state for the headers. */
    record Level(long limit, long available, long nanosToFull) {
    }

    private static final class Buckets {

        final ReentrantLock lock = new ReentrantLock();

        private final TimeMeter meter;

        private final Duration window;

        private ModelLimits limits = ModelLimits.unlimited();

        private final @Nullable Bucket[] byDimension = new Bucket[Dimension.values().length];

        Buckets(TimeMeter meter, Duration window) {
            this.meter = meter;
            this.window = window;
        }

        @Nullable Bucket get(Dimension d) {
            return this.byDimension[d.ordinal()];
        }

        long limit(Dimension d) {
            return limitOf(this.limits, d);
        }

        /**
         * What the bucket of a dimension holds at most: the window's worth of its limit.
         */
        long capacity(Dimension d) {
            return capacityOf(limit(d), this.window);
        }

        /**
         * Applies changed limits, keeping the current level (capped at the new capacity).
         */
        void reconfigure(ModelLimits wanted) {
            if (wanted.equals(this.limits)) {
                return;
            }
            for (Dimension d : Dimension.values()) {
                long limit = limitOf(wanted, d);
                Bucket current = this.byDimension[d.ordinal()];
                if (limit <= 0) {
                    this.byDimension[d.ordinal()] = null;
                }
                else if (current == null) {
                    this.byDimension[d.ordinal()] = Bucket.builder()
                        .addLimit(bandwidth(limit, this.window))
                        .withCustomTimePrecision(this.meter)
                        .build();
                }
                else if (limit != limitOf(this.limits, d)) {
                    current.replaceConfiguration(
                            BucketConfiguration.builder().addLimit(bandwidth(limit, this.window)).build(),
                            TokensInheritanceStrategy.AS_IS);
                }
            }
            this.limits = wanted;
        }

        /**
         * Refills {@code limit} a minute, holding at most the window's worth: the same
         * rate expressed over the window.
         */
        private static Bandwidth bandwidth(long limit, Duration window) {
            long capacity = capacityOf(limit, window);
            if (capacity >= limit) {
                return Bandwidth.builder().capacity(limit).refillGreedy(limit, Duration.ofMinutes(1)).build();
            }
            long nanos = Math.max(1, (long) ((double) NANOS_PER_MINUTE * capacity / limit));
            return Bandwidth.builder().capacity(capacity).refillGreedy(capacity, Duration.ofNanos(nanos)).build();
        }

        private static long capacityOf(long limit, Duration window) {
            return Math.max(1, (long) Math.floor((double) limit * window.toNanos() / NANOS_PER_MINUTE));
        }

        private static long limitOf(ModelLimits limits, Dimension d) {
            return switch (d) {
                case REQUESTS -> limits.requestsPerMinute();
                case INPUT_TOKENS -> limits.inputTokensPerMinute();
                case OUTPUT_TOKENS -> limits.outputTokensPerMinute();
                case TOKENS -> limits.tokensPerMinute();
            };
        }

    }

}
