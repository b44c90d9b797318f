package io.github.llmthrottle.limit;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.bucket4j.TokensInheritanceStrategy;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import io.github.llmthrottle.time.Nanos;
import io.github.llmthrottle.time.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Buckets shared by every instance that uses the same Redis server
 * ({@code llm.throttle.store=redis}): Bucket4j's compare-and-swap {@link ProxyManager} over a
 * Lettuce connection of its own, one Redis key per bucket ({@code keyPrefix + ":" + key}), each
 * with the same configuration as a local bucket ({@link Bucket4jTokenBucket#configuration(long)}).
 * Keys expire once their bucket would be full again (an absent bucket is created full, so nothing
 * is lost), and every operation is atomic in Redis: a {@code tryConsume} of one instance never
 * takes tokens another instance took.
 *
 * <h2>Limits</h2> Each handle asks Redis for its configuration with a version taken from the clock
 * when the limit was set here ({@link TokenBucket#reconfigure(long)}, or the handle's creation),
 * and Redis replaces an older configuration, keeping the tokens (Bucket4j's implicit configuration
 * replacement). So the latest limit set by any instance (a redeployment with new limits, a runtime
 * change) governs the shared bucket.
 *
 * <h2>Failures</h2> Every Redis command has a timeout. When Redis cannot be reached (no
 * connection yet, connection lost, a command failing or timing out) the store serves calls without
 * Redis for {@code retryInterval}, then tries Redis again; Lettuce reconnects a lost connection in
 * the background, and while it is not connected the store does not wait for it. One warning is
 * logged per outage, and one message when Redis answers again. Without Redis, with
 * {@link OnFailure#LOCAL} each bucket is served by a local bucket of the same key (every instance
 * then admits up to the whole limit on its own); with {@link OnFailure#REJECT} taking tokens throws
 * {@link BucketStoreUnavailableException} (the {@link ModelLimiter} fails the call), waits are
 * reported as zero so that calls fail at once instead of waiting, and refunds and overdrafts are
 * dropped.
 *
 * <p>The store opens its own connection through the given client, on a background thread: the
 * constructor waits for it for at most the client's connect timeout, later attempts (after a
 * failed one) for at most the command timeout. {@link #close()} closes it; the client stays the
 * caller's.
 */
public final class RedisBucketStore implements BucketStore, AutoCloseable {

    private static final Log logger = LogFactory.getLog(RedisBucketStore.class);

    /** How long a key outlives the moment its bucket would be full again. */
    private static final Duration KEEP_AFTER_REFILL = Duration.ofSeconds(10);

    private static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);

    private final AbstractRedisClient client;

    private final String keyPrefix;

    private final OnFailure onFailure;

    private final Duration timeout;

    private final Duration retryInterval;

    private final TimeSource timeSource;

    private final LocalBucketStore local;

    private final Map<String, SharedBucket> buckets = new ConcurrentHashMap<>();

    private final ExecutorService connector;

    private final AtomicReference<@Nullable CompletableFuture<Connection>> connecting = new AtomicReference<>();

    private final AtomicBoolean outage = new AtomicBoolean();

    private final AtomicLong lastVersion = new AtomicLong();

    private volatile @Nullable Connection connection;

    private volatile long downUntil = Long.MIN_VALUE;

    private volatile boolean closed;

    /**
     * Creates a store on a Lettuce client ({@link RedisClient} or {@link RedisClusterClient}) and
     * starts connecting.
     * @param client the client to open the store's connection with; it stays the caller's
     * @param keyPrefix prefix of the Redis keys ({@code llm.throttle.redis.key-prefix})
     * @param onFailure what to do without Redis ({@code llm.throttle.redis.on-failure})
     * @param timeout longest wait for one Redis command, and for the connection
     * @param retryInterval how long to do without Redis after a failure before trying it again
     * @param timeSource time of the buckets (its wall clock) and of the back-off (its monotonic
     * clock)
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
        this.client = client;
        this.keyPrefix = keyPrefix;
        this.onFailure = onFailure;
        this.timeout = timeout;
        this.retryInterval = retryInterval;
        this.timeSource = timeSource;
        this.local = new LocalBucketStore(timeSource);
        this.connector = Executors.newSingleThreadExecutor((runnable) -> {
            Thread thread = new Thread(runnable, "llm-throttle-redis-connect");
            thread.setDaemon(true);
            return thread;
        });
        // Wait for the connection here (at startup) rather than send the first calls to local
        // buckets while it opens; the client's connect timeout bounds the wait.
        awaitConnection(client.getOptions().getSocketOptions().getConnectTimeout());
    }

    @Override
    public TokenBucket bucket(String key, long limitPerMinute) {
        SharedBucket bucket = this.buckets.computeIfAbsent(key,
                (k) -> new SharedBucket(this.keyPrefix + ":" + k, k, limitPerMinute));
        bucket.reconfigure(limitPerMinute);
        return bucket;
    }

    /**
     * Whether the store is serving calls without Redis now (until Redis answers again).
     * @return whether an outage is going on
     */
    public boolean isUnavailable() {
        return this.outage.get();
    }

    /** Closes the store's connection; the client stays open. */
    @Override
    public void close() {
        this.closed = true;
        this.connector.shutdownNow();
        CompletableFuture<Connection> attempt = this.connecting.get();
        if (attempt != null) {
            attempt.thenAccept((opened) -> opened.connection().close());
        }
    }

    private CompletableFuture<Connection> connectAttempt() {
        while (true) {
            CompletableFuture<Connection> attempt = this.connecting.get();
            if (attempt != null) {
                return attempt;
            }
            CompletableFuture<Connection> created = new CompletableFuture<>();
            if (this.connecting.compareAndSet(null, created)) {
                try {
                    this.connector.execute(() -> {
                        try {
                            created.complete(open());
                        }
                        catch (RuntimeException ex) {
                            created.completeExceptionally(ex);
                        }
                    });
                }
                catch (RejectedExecutionException ex) {
                    created.completeExceptionally(ex);
                }
                return created;
            }
        }
    }

    private Connection open() {
        StatefulConnection<String, byte[]> opened;
        Bucket4jLettuce.LettuceBasedProxyManagerBuilder<String> builder;
        if (this.client instanceof RedisClusterClient cluster) {
            StatefulRedisClusterConnection<String, byte[]> clusterConnection = cluster.connect(CODEC);
            opened = clusterConnection;
            builder = Bucket4jLettuce.casBasedBuilder(clusterConnection);
        }
        else {
            StatefulRedisConnection<String, byte[]> redisConnection = ((RedisClient) this.client).connect(CODEC);
            opened = redisConnection;
            builder = Bucket4jLettuce.casBasedBuilder(redisConnection);
        }
        ProxyManager<String> proxyManager = builder.clientClock(new LocalBucketStore.ClockTimeMeter(this.timeSource.clock()))
            .requestTimeout(this.timeout)
            .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(KEEP_AFTER_REFILL))
            .build();
        if (this.closed) {
            opened.close();
            throw new IllegalStateException("RedisBucketStore is closed");
        }
        return new Connection(opened, proxyManager);
    }

    /** The connection to use now, or {@code null} to do without Redis. */
    private @Nullable Connection available() {
        if (this.closed || now() < this.downUntil) {
            return null;
        }
        Connection current = this.connection;
        if (current == null) {
            current = awaitConnection(this.timeout);
            if (current == null) {
                return null;
            }
        }
        if (!current.connection().isOpen()) {
            // Lettuce is reconnecting in the background: do not queue commands behind it.
            if (!this.client.getOptions().isAutoReconnect()) {
                // Nobody reconnects this one: open a new connection on the next try.
                CompletableFuture<Connection> attempt = this.connecting.get();
                this.connection = null;
                if (attempt != null) {
                    this.connecting.compareAndSet(attempt, null);
                }
                current.connection().close();
            }
            down(null);
            return null;
        }
        return current;
    }

    private @Nullable Connection awaitConnection(Duration wait) {
        CompletableFuture<Connection> attempt = connectAttempt();
        try {
            Connection opened = attempt.get(wait.toNanos(), TimeUnit.NANOSECONDS);
            this.connection = opened;
            return opened;
        }
        catch (TimeoutException ex) {
            // Still connecting: let it go on in the background.
            down(ex);
        }
        catch (ExecutionException ex) {
            this.connecting.compareAndSet(attempt, null);
            down(ex.getCause());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return null;
    }

    private void down(@Nullable Throwable cause) {
        this.downUntil = Nanos.saturatedAdd(now(), this.retryInterval.toNanos());
        if (this.outage.compareAndSet(false, true)) {
            String then = (this.onFailure == OnFailure.LOCAL) ? "serving calls from local buckets"
                    : "rejecting calls";
            String message = "Redis bucket store unavailable" + ((cause != null) ? " (" + cause + ")" : "")
                    + "; " + then + " until it answers again, trying again every " + this.retryInterval;
            logger.warn(message, cause);
        }
        else if (logger.isDebugEnabled()) {
            logger.debug("Redis bucket store still unavailable", cause);
        }
    }

    private void up() {
        if (this.outage.get() && this.outage.compareAndSet(true, false)) {
            logger.info("Redis bucket store answers again; buckets are shared again");
        }
    }

    private @Nullable Duration untilRetry() {
        long wait = Nanos.saturatedSubtract(this.downUntil, now());
        return (wait > 0) ? Duration.ofNanos(wait) : null;
    }

    private long nextVersion() {
        // Wall-clock millis: every instance orders the configurations it sets by the same time.
        long millis = this.timeSource.instant().toEpochMilli();
        return this.lastVersion.updateAndGet((last) -> Math.max(last + 1, millis));
    }

    private long now() {
        return this.timeSource.nanoTime();
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

    /** The store's connection and the proxy manager on it. */
    private record Connection(StatefulConnection<String, byte[]> connection, ProxyManager<String> proxyManager) {
    }

    /** A limit and the configuration version it was set with. */
    private record Limit(long perMinute, long version) {
    }

    /** The Bucket4j proxy of one key, for one connection and limit. */
    private record Remote(Connection connection, Limit limit, Bucket4jTokenBucket bucket) {
    }

    /** One shared bucket: Redis when it answers, the local fallback (or a refusal) when not. */
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
                        "Redis bucket store unavailable for bucket '" + this.key + "'", untilRetry(), null);
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
            // Rejecting: report no wait, so that the call reaches tryConsume and fails at once.
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
                // Any command carries the newer configuration version: tell Redis now, not with
                // the next admission, so that the other instances see the new limit at once.
                execute(TokenBucket::availableTokens, () -> 0L);
            }
        }

        private <T> T execute(Function<TokenBucket, T> operation, Supplier<T> whenRejecting) {
            Connection current = available();
            if (current != null) {
                try {
                    T result = operation.apply(remote(current));
                    up();
                    return result;
                }
                catch (RuntimeException ex) {
                    // An interrupted caller says nothing about Redis.
                    if (!Thread.currentThread().isInterrupted()) {
                        down(ex);
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
