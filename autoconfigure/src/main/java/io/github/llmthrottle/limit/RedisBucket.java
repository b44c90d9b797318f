package io.github.llmthrottle.limit;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.github.llmthrottle.limit.RedisBucketScript.Operation;
import org.jspecify.annotations.Nullable;

/**
 * The handle of one bucket of a {@link RedisBucketStore}: its limit, with the version
 * Redis orders limits by; what the last answer about it said (Redis's, or the local
 * fallback's), refilled since, which is what {@link #availableTokens()} and
 * {@link #nanosToWaitFor(long)} answer without asking Redis; and its changes, which the
 * store sends without waiting. Only {@link #tryConsume(long)} waits for Redis.
 */
final class RedisBucket implements TokenBucket {

    private static final double MINUTE_MICROS = 60_000_000.0;

    private static final double MINUTE_NANOS = 60_000_000_000.0;

    private static final Runnable NOTHING = () -> {
    };

    final String redisKey;

    final String key;

    private final RedisBucketStore store;

    private volatile Limit limit;

    private final AtomicReference<@Nullable Level> level = new AtomicReference<>();

    RedisBucket(RedisBucketStore store, String redisKey, String key, long limitPerMinute) {
        this.store = store;
        this.redisKey = redisKey;
        this.key = key;
        this.limit = new Limit(limitPerMinute, store.nextVersion());
    }

    /** The limit and its version. */
    Limit limit() {
        return this.limit;
    }

    @Override
    public long capacity() {
        return this.limit.perMinute();
    }

    @Override
    public long availableTokens() {
        return (long) Math.floor(tokensNow());
    }

    @Override
    public boolean tryConsume(long tokens) {
        if (tokens <= 0) {
            return true;
        }
        try {
            return this.store.take(List.of(this), new long[] { tokens }, 1, NOTHING).taken();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public long nanosToWaitFor(long tokens) {
        if (tokens <= 0) {
            return 0;
        }
        long capacity = capacity();
        if (tokens > capacity) {
            return Long.MAX_VALUE;
        }
        double lacking = tokens - tokensNow();
        return (lacking <= 0) ? 0 : (long) Math.ceil(lacking * MINUTE_NANOS / capacity);
    }

    @Override
    public void forceConsume(long tokens) {
        if (tokens > 0) {
            this.store.change(this, Operation.ADJUST, tokens);
        }
    }

    @Override
    public void refund(long tokens) {
        if (tokens > 0) {
            this.store.change(this, Operation.ADJUST, -tokens);
        }
    }

    @Override
    public void limitTo(long tokens) {
        // Redis may hold more than this instance last heard: let it decide.
        this.store.change(this, Operation.CAP, tokens);
    }

    @Override
    public void reconfigure(long limitPerMinute) {
        if (limitPerMinute != this.limit.perMinute()) {
            this.limit = new Limit(limitPerMinute, this.store.nextVersion());
            // Tell Redis now, not with the next admission, so that the other instances
            // see the new limit at once.
            this.store.change(this, Operation.ADJUST, 0);
        }
    }

    /** Records what the bucket held at a time, unless a later answer is known. */
    void observe(double tokens, long atMicros) {
        Level observed = new Level(tokens, atMicros);
        this.level.accumulateAndGet(observed,
                (known, next) -> (known == null || next.atMicros() >= known.atMicros()) ? next : known);
    }

    /** Records what the local bucket standing in for this one holds now. */
    void observeLocal(TokenBucket local) {
        observe(local.availableTokens(), this.store.nowMicros());
    }

    /**
     * What the last answer said, refilled since (full before the first answer, as an
     * absent bucket is).
     */
    private double tokensNow() {
        Level known = this.level.get();
        double capacity = capacity();
        if (known == null || known.tokens() >= capacity) {
            return capacity;
        }
        long elapsed = Math.max(0, this.store.nowMicros() - known.atMicros());
        return Math.min(capacity, known.tokens() + elapsed * capacity / MINUTE_MICROS);
    }

    @Override
    public String toString() {
        return "RedisBucket[key=" + this.redisKey + ", capacity=" + capacity() + "]";
    }

    /** A limit and the version it was set with. */
    record Limit(long perMinute, long version) {
    }

    /** What a bucket held at a time (microseconds of the wall clock). */
    private record Level(double tokens, long atMicros) {
    }

}
