package io.github.llmthrottle.limit;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.bucket4j.TokensInheritanceStrategy;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.llmthrottle.limit.RedisConnector.Connection;
import io.github.llmthrottle.time.TimeSource;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import org.jspecify.annotations.Nullable;

/**
 * Buckets shared by every instance that uses the same Redis server
 * ({@code llm.throttle.store=redis}): Bucket4j's compare-and-swap {@link ProxyManager}
 * over a Lettuce connection of its own, one Redis key per bucket
 * ({@code keyPrefix + ":" + key}), each with the same configuration as a local bucket
 * ({@link Bucket4jTokenBucket#configuration(long)}). Keys expire once their bucket would
 * be full again (an absent bucket is created full, so nothing is lost), and every
 * operation is atomic in Redis: a {@code tryConsume} of one instance never takes tokens
 * another instance took.
 *
 * <h2>Limits</h2> Each handle asks Redis for its configuration with a version taken from
 * the clock when the limit was set here ({@link TokenBucket#reconfigure(long)}, or the
 * handle's creation), and Redis replaces an older configuration, keeping the tokens
 * (Bucket4j's implicit configuration replacement). So the latest limit set by any
 * instance (a redeployment with new limits, a runtime change) governs the shared bucket.
 *
 * <h2>Failures</h2> Every Redis command has a timeout. When Redis cannot be reached (no
 * connection yet, connection lost, a command failing or timing out) the store serves
 * calls without Redis for {@code retryInterval}, then tries Redis again; Lettuce
 * reconnects a lost connection in the background, and while it is not connected the store
 * does not wait for it. One warning is logged per outage, and one message when Redis
 * answers again. Without Redis, with {@link OnFailure#LOCAL} each bucket is served by a
 * local bucket of the same key (every instance then admits up to the whole limit on its
 * own); with {@link OnFailure#REJECT} taking tokens throws
 * {@link BucketStoreUnavailableException} (the {@link ModelLimiter} fails the call),
 * waits are reported as zero so that calls fail at once instead of waiting, and refunds
 * and overdrafts are dropped.
 *
 * <p>
 * The store opens its own connection through the given client, on a background thread:
 * the constructor waits for it for at most the client's connect timeout, later attempts
 * (after a failed one) for at most the command timeout. {@link #close()} closes it; the
 * client stays the caller's. The connection and the back-off after a failure are the
 * {@link RedisConnector}'s; this class holds the buckets and what to do without Redis.
 */
public final class RedisBucketStore implements BucketStore, AutoCloseable {

    private final String keyPrefix;

    private final OnFailure onFailure;

    private final TimeSource timeSource;

    private final LocalBucketStore local;

    private final RedisConnector redis;

    private final Map<String, SharedBucket> buckets = new ConcurrentHashMap<>();

    private final AtomicLong lastVersion = new AtomicLong();

    /**
     * Creates a store on a Lettuce client ({@link RedisClient} or
     * {@link RedisClusterClient}) and starts connecting.
     * @param client the client to open the store's connection with; it stays the caller's
     * @param keyPrefix prefix of the Redis keys ({@code llm.throttle.redis.key-prefix})
     * @param onFailure what to do without Redis ({@code llm.throttle.redis.on-failure})
     * @param timeout longest wait for one Redis command, and for the connection
     * @param retryInterval how long to do without Redis after a failure before trying it
     * again
     * @param timeSource time of the buckets (its wall clock) and of the back-off (its
     * monotonic clock)
     */
    public RedisBucketStore(AbstractRedisClient client, String keyPrefix, OnFailure onFailure, Duration timeout,
            Duration retryInterval, TimeSource timeSource) {
        if (!(client instanceof RedisClient) && !(client instanceof RedisClusterClient)) {
            throw new IllegalArgumentException("Unsupported Lettuce client " + client.getClass().getName());
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        if (retryInterval.isNegative()) {
            throw new IllegalArgumentException("retryInterval must not be negative, was " + retryInterval);
        }
        this.keyPrefix = keyPrefix;
        this.onFailure = onFailure;
        this.timeSource = timeSource;
        this.local = new LocalBucketStore(timeSource);
        String withoutRedis = (onFailure == OnFailure.LOCAL) ? "serving calls from local buckets" : "rejecting calls";
        this.redis = new RedisConnector(client, timeout, retryInterval, withoutRedis, timeSource);
    }

    @Override
    public TokenBucket bucket(String key, long limitPerMinute) {
        SharedBucket bucket = this.buckets.computeIfAbsent(key,
                (k) -> new SharedBucket(this.keyPrefix + ":" + k, k, limitPerMinute));
        bucket.reconfigure(limitPerMinute);
        return bucket;
    }

    @Override
    public void forget(String key) {
        this.buckets.remove(key);
    }

    /**
     * Whether the store is serving calls without Redis now (until Redis answers again).
     * @return whether an outage is going on
     */
    public boolean isUnavailable() {
        return this.redis.isDown();
    }

    /** Closes the store's connection; the client stays open. */
    @Override
    public void close() {
        this.redis.close();
    }

    private long nextVersion() {
        // Wall-clock millis: every instance orders the configurations it sets by the same
        // time.
        long millis = this.timeSource.instant().toEpochMilli();
        return this.lastVersion.updateAndGet((last) -> Math.max(last + 1, millis));
    }

    @Override
    public String toString() {
        return "RedisBucketStore[keyPrefix=" + this.keyPrefix + ", onFailure=" + this.onFailure + "]";
    }

    /** What to do while Redis does not answer. */
    public enum OnFailure {

        /** Serve each bucket from a local bucket of the same key. */
        LOCAL,

        /** Refuse admissions ({@link BucketStoreUnavailableException}). */
        REJECT

    }

    /** A limit and the configuration version it was set with. */
    private record Limit(long perMinute, long version) {
    }

    /** The Bucket4j proxy of one key, for one connection and limit. */
    private record Remote(Connection connection, Limit limit, Bucket4jTokenBucket bucket) {
    }

    /**
     * One shared bucket: Redis when it answers, the local fallback (or a refusal) when
     * not.
     */
    private final class SharedBucket implements TokenBucket {

        private final String redisKey;

        private final String key;

        private volatile Limit limit;

        private volatile @Nullable Remote remote;

        SharedBucket(String redisKey, String key, long limitPerMinute) {
            this.redisKey = redisKey;
            this.key = key;
            this.limit = new Limit(limitPerMinute, nextVersion());
        }

        @Override
        public long capacity() {
            return this.limit.perMinute();
        }

        @Override
        public long availableTokens() {
            return execute(TokenBucket::availableTokens, () -> 0L);
        }

        @Override
        public boolean tryConsume(long tokens) {
            if (tokens <= 0) {
                return true;
            }
            return execute((bucket) -> bucket.tryConsume(tokens), () -> {
                throw new BucketStoreUnavailableException(
                        "Redis bucket store unavailable for bucket '" + this.key + "'",
                        RedisBucketStore.this.redis.untilRetry(), null);
            });
        }

        @Override
        public long nanosToWaitFor(long tokens) {
            if (tokens <= 0) {
                return 0;
            }
            if (tokens > capacity()) {
                return Long.MAX_VALUE;
            }
            // Rejecting: report no wait, so that the call reaches tryConsume and fails at
            // once.
            return execute((bucket) -> bucket.nanosToWaitFor(tokens), () -> 0L);
        }

        @Override
        public void forceConsume(long tokens) {
            if (tokens > 0) {
                execute((bucket) -> {
                    bucket.forceConsume(tokens);
                    return null;
                }, () -> null);
            }
        }

        @Override
        public void refund(long tokens) {
            if (tokens > 0) {
                execute((bucket) -> {
                    bucket.refund(tokens);
                    return null;
                }, () -> null);
            }
        }

        @Override
        public void reconfigure(long limitPerMinute) {
            if (limitPerMinute != this.limit.perMinute()) {
                this.limit = new Limit(limitPerMinute, nextVersion());
                // Any command carries the newer configuration version: tell Redis now,
                // not with the next admission, so that the other instances see the new
                // limit at once.
                execute(TokenBucket::availableTokens, () -> 0L);
            }
        }

        private <T> T execute(Function<TokenBucket, T> operation, Supplier<T> whenRejecting) {
            RedisConnector redis = RedisBucketStore.this.redis;
            Connection current = redis.available();
            if (current != null) {
                try {
                    T result = operation.apply(remote(current));
                    redis.answered();
                    return result;
                }
                catch (RuntimeException ex) {
                    // An interrupted caller says nothing about Redis.
                    if (!Thread.currentThread().isInterrupted()) {
                        redis.failed(ex);
                    }
                }
            }
            if (RedisBucketStore.this.onFailure == OnFailure.REJECT) {
                return whenRejecting.get();
            }
            return operation.apply(RedisBucketStore.this.local.bucket(this.key, this.limit.perMinute()));
        }

        private TokenBucket remote(Connection current) {
            Limit wanted = this.limit;
            Remote proxy = this.remote;
            if (proxy == null || proxy.connection() != current || proxy.limit() != wanted) {
                BucketProxy bucket = current.proxyManager()
                    .builder()
                    .withImplicitConfigurationReplacement(wanted.version(), TokensInheritanceStrategy.AS_IS)
                    .build(this.redisKey, () -> Bucket4jTokenBucket.configuration(wanted.perMinute()));
                proxy = new Remote(current, wanted, new Bucket4jTokenBucket(bucket, wanted.perMinute()));
                this.remote = proxy;
            }
            return proxy.bucket();
        }

        @Override
        public String toString() {
            return "RedisBucketStore.SharedBucket[key=" + this.redisKey + ", capacity=" + capacity() + "]";
        }

    }

}
