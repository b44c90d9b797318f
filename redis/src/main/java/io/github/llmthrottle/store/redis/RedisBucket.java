package io.github.llmthrottle.store.redis;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.github.llmthrottle.store.TokenBucket;
import io.github.llmthrottle.store.redis.RedisBucketScript.Operation;
import org.jspecify.annotations.Nullable;

/**
 * The handle of one bucket of a {@link RedisBucketStore}: its limit, with the version
 * Redis orders limits by; the provider's burst this instance learned
 * ({@link #limitBurst(long)}), which every command about the bucket carries so that the
 * shared bucket holds no more than it ({@link RedisBucketScript}); what the last answer
 * about it said (Redis's, or the local fallback's: the level, and the burst the shared
 * bucket is held at, whichever instance learned it), refilled since, which is what
 * {@link #availableTokens()}, {@link #burstCapacity()} and {@link #nanosToWaitFor(long)}
 * answer without asking Redis; and its changes, which the store sends without waiting.
 * Only {@link #tryConsume(long)} waits for Redis.
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

    /** The provider's burst learned here, {@code 0} for none. */
    private volatile long burst;

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

    /**
     * The provider's burst this instance learned, when it is below the capacity;
     * {@code 0} for none.
     */
    long burst() {
        long known = this.burst;
        return (known > 0 && known < capacity()) ? known : 0;
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
        if (tokens > burstCapacity()) {
            return Long.MAX_VALUE;
        }
        double lacking = tokens - tokensNow();
        return (lacking <= 0) ? 0 : (long) Math.ceil(lacking * MINUTE_NANOS / capacity());
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

    /**
     * The most the bucket holds at once: its capacity, or less when this instance learned
     * the provider's burst or the last answer said the shared bucket is held at one
     * (another instance's).
     */
    @Override
    public long burstCapacity() {
        long most = capacity();
        long learned = burst();
        if (learned > 0) {
            most = Math.min(most, learned);
        }
        Level known = this.level.get();
        if (known != null && known.cap() > 0) {
            most = Math.min(most, known.cap());
        }
        return most;
    }

    /**
     * Caps the shared bucket at the provider's burst, learned here: sent to Redis now, so
     * that the other instances see it at once, and with every later command. A lifted cap
     * (none learned, or a whole minute's worth) is not sent: the burst another instance
     * learned may still hold.
     */
    @Override
    public void limitBurst(long burst) {
        long wanted = (burst > 0 && burst < capacity()) ? burst : 0;
        if (wanted != this.burst) {
            this.burst = wanted;
            if (wanted > 0) {
                this.store.change(this, Operation.ADJUST, 0);
            }
        }
    }

    /**
     * Records what the bucket held at a time, and the burst it is held at ({@code 0} for
     * none), unless a later answer is known.
     */
    void observe(double tokens, long atMicros, long cap) {
        Level observed = new Level(tokens, atMicros, cap);
        this.level.accumulateAndGet(observed,
                (known, next) -> (known == null || next.atMicros() >= known.atMicros()) ? next : known);
    }

    /** Records what the local bucket standing in for this one holds now. */
    void observeLocal(TokenBucket local) {
        long cap = local.burstCapacity();
        observe(local.availableTokens(), this.store.nowMicros(), (cap < local.capacity()) ? cap : 0);
    }

    /**
     * What the last answer said, refilled since (full before the first answer, as an
     * absent bucket is).
     */
    private double tokensNow() {
        Level known = this.level.get();
        double most = burstCapacity();
        if (known == null || known.tokens() >= most) {
            return most;
        }
        long elapsed = Math.max(0, this.store.nowMicros() - known.atMicros());
        return Math.min(most, known.tokens() + elapsed * (double) capacity() / MINUTE_MICROS);
    }

    @Override
    public String toString() {
        long most = burstCapacity();
        return "RedisBucket[key=" + this.redisKey + ", capacity=" + capacity()
                + ((most < capacity()) ? ", burst=" + most : "") + "]";
    }

    /** A limit and the version it was set with. */
    record Limit(long perMinute, long version) {
    }

    /**
     * What a bucket held at a time (microseconds of the wall clock), and the burst it was
     * held at ({@code 0} for none).
     */
    private record Level(double tokens, long atMicros, long cap) {
    }

}
