package io.github.llmthrottle.store;

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

    /** What the bucket holds at most: the capacity, or a lower burst. */
    private volatile long burst;

    /**
     * Wraps a bucket that was built with {@link #configuration(long)} of
     * {@code limitPerMinute}.
     * @param bucket the Bucket4j bucket
     * @param limitPerMinute its limit
     */
    public Bucket4jTokenBucket(Bucket bucket, long limitPerMinute) {
        this.bucket = bucket;
        this.capacity = limitPerMinute;
        this.burst = limitPerMinute;
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
        return bandwidth(limitPerMinute, limitPerMinute);
    }

    /**
     * A bandwidth that refills {@code limitPerMinute} a minute but holds at most
     * {@code burst}.
     */
    static Bandwidth bandwidth(long limitPerMinute, long burst) {
        if (burst >= limitPerMinute) {
            return Bandwidth.builder().capacity(limitPerMinute).refillGreedy(limitPerMinute, PERIOD).build();
        }
        // the same rate, over the time the burst takes to refill
        long nanos = Math.max(1, (long) ((double) PERIOD.toNanos() * burst / limitPerMinute));
        return Bandwidth.builder().capacity(burst).refillGreedy(burst, Duration.ofNanos(nanos)).build();
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
        if (tokens > this.burst) {
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
            replace(limitPerMinute, Math.min(this.burst, limitPerMinute));
        }
    }

    @Override
    public long burstCapacity() {
        return this.burst;
    }

    @Override
    public void limitBurst(long burst) {
        long wanted = Math.max(1, Math.min(burst, this.capacity));
        if (wanted != this.burst) {
            replace(this.capacity, wanted);
        }
    }

    private void replace(long limitPerMinute, long burst) {
        this.bucket.replaceConfiguration(
                BucketConfiguration.builder().addLimit(bandwidth(limitPerMinute, burst)).build(),
                TokensInheritanceStrategy.AS_IS);
        this.capacity = limitPerMinute;
        this.burst = burst;
    }

    @Override
    public String toString() {
        return "Bucket4jTokenBucket[capacity=" + this.capacity
                + ((this.burst < this.capacity) ? ", burst=" + this.burst : "") + "]";
    }

}
