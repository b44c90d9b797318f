package io.github.llmthrottle.limit;

import java.time.Duration;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.TokensInheritanceStrategy;

/**
 * A {@link TokenBucket} on a Bucket4j {@link Bucket}, local or a proxy of a shared one:
 * capacity one minute's worth of the limit, refilled greedily (continuously), as
 * Anthropic documents its own buckets.
 */
public final class Bucket4jTokenBucket implements TokenBucket {

    private static final Duration PERIOD = Duration.ofMinutes(1);

    private final Bucket bucket;

    private volatile long capacity;

    /**
     * Wraps a bucket that was built with {@link #configuration(long)} of
     * {@code limitPerMinute}.
     * @param bucket the Bucket4j bucket
     * @param limitPerMinute its limit
     */
    public Bucket4jTokenBucket(Bucket bucket, long limitPerMinute) {
        this.bucket = bucket;
        this.capacity = limitPerMinute;
    }

    /**
     * The Bucket4j configuration of a per-minute limit: capacity {@code limitPerMinute},
     * greedy refill of {@code limitPerMinute} per minute.
     * @param limitPerMinute the limit
     * @return the configuration
     */
    public static BucketConfiguration configuration(long limitPerMinute) {
        return BucketConfiguration.builder().addLimit(bandwidth(limitPerMinute)).build();
    }

    static Bandwidth bandwidth(long limitPerMinute) {
        return Bandwidth.builder().capacity(limitPerMinute).refillGreedy(limitPerMinute, PERIOD).build();
    }

    @Override
    public long capacity() {
        return this.capacity;
    }

    @Override
    public long availableTokens() {
        return this.bucket.getAvailableTokens();
    }

    @Override
    public boolean tryConsume(long tokens) {
        return tokens <= 0 || this.bucket.tryConsume(tokens);
    }

    @Override
    public long nanosToWaitFor(long tokens) {
        if (tokens <= 0) {
            return 0;
        }
        if (tokens > this.capacity) {
            return Long.MAX_VALUE;
        }
        return this.bucket.estimateAbilityToConsume(tokens).getNanosToWaitForRefill();
    }

    @Override
    public void forceConsume(long tokens) {
        if (tokens > 0) {
            this.bucket.consumeIgnoringRateLimits(tokens);
        }
    }

    @Override
    public void refund(long tokens) {
        if (tokens > 0) {
            this.bucket.addTokens(tokens);
        }
    }

    @Override
    public void reconfigure(long limitPerMinute) {
        if (limitPerMinute != this.capacity) {
            this.bucket.replaceConfiguration(configuration(limitPerMinute), TokensInheritanceStrategy.AS_IS);
            this.capacity = limitPerMinute;
        }
    }

    @Override
    public String toString() {
        return "Bucket4jTokenBucket[capacity=" + this.capacity + "]";
    }

}
