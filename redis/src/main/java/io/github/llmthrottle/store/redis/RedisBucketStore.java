package io.github.llmthrottle.store.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.store.BucketStoreUnavailableException;
import io.github.llmthrottle.store.Settlement;
import io.github.llmthrottle.store.SharedBucketStore;
import io.github.llmthrottle.store.TokenBucket;
import io.github.llmthrottle.store.redis.RedisBucketScript.Operation;
import io.github.llmthrottle.store.redis.RedisBucketScript.Reply;
import io.github.llmthrottle.store.redis.RedisConnector.Connection;
import io.github.llmthrottle.time.Nanos;
import io.github.llmthrottle.time.TimeSource;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Buckets shared by every instance that uses the same Redis server
 * ({@code llm.throttle.store=redis}), over a Lettuce connection of its own. Each bucket
 * is one Redis key ({@code keyPrefix + ":" + key}) with the same model as a local bucket
 * (capacity one minute's worth of the limit, refilled continuously, held at the
 * provider's burst once an instance has learned it from the provider's headers), and one
 * {@link RedisBucketScript} does everything to them: an admission takes all of its
 * buckets, its model's and its tenant's, atomically in one round trip, or none
 * ({@link #take}). Keys expire once their bucket would be full again (an absent bucket is
 * created full, so nothing is lost).
 *
 * <h2>Who waits for Redis</h2> Only the caller whose buckets are taken, on its own
 * thread, for at most the timeout: the {@link ModelLimiter} calls {@link #take} without
 * its lock. Everything else is sent without waiting, by a thread of the store's own
 * (never an application thread, so neither a caller's lock nor its interrupt touches it):
 * the settlement of a reservation ({@link Settlement}, to the store it was taken from:
 * the Redis connection, or the local buckets of a call served without Redis), and the
 * changes through a {@link TokenBucket} handle. What a handle holds is what the last
 * answer about its bucket said, refilled since (full before the first): the actuator and
 * the gauges read that, never Redis.
 *
 * <h2>Limits</h2> Each handle sends its limit with a version from the Redis server's time
 * when it was set here ({@link RedisConnector#serverInstant()}), and Redis replaces an
 * older limit, keeping the tokens: the latest limit set by any instance governs.
 *
 * <h2>Failures</h2> A command that fails or answers later than the timeout fails only its
 * own call: served from local buckets of the same keys ({@link OnFailure#LOCAL}) or
 * refused ({@link BucketStoreUnavailableException}); what a late command, or that of a
 * caller interrupted while waiting for it, took is given back when it answers. When Redis
 * cannot be reached (no connection, connection lost, several commands failing in a row)
 * every call does without Redis for {@code retryInterval}, as {@link RedisConnector}
 * describes: with {@link OnFailure#LOCAL} each bucket is served by a local bucket of the
 * same key (every instance then admits up to the whole limit on its own); with
 * {@link OnFailure#REJECT} admissions fail, and changes through the handles are dropped.
 *
 * <p>
 * The store opens its own connection through the given client, on a background thread:
 * the constructor waits for it for at most the client's connect timeout, later attempts
 * (after a failed one) for at most the command timeout. {@link #close()} closes it; the
 * client stays the caller's.
 */
public final class RedisBucketStore implements SharedBucketStore, AutoCloseable {

    private static final Log logger = LogFactory.getLog(RedisBucketStore.class);

    private final String keyPrefix;

    private final OnFailure onFailure;

    private final Duration timeout;

    private final TimeSource timeSource;

    /** Who pauses a model, as the other instances see it: {@code pid@host}. */
    private final String instanceId = ProcessHandle.current().pid() + "@" + hostName();

    /** The time of the shared buckets, {@code null} for the Redis server's. */
    private final @Nullable Clock serverClock;

    /**
     * The local buckets that stand in for the shared ones while Redis does not answer.
     */
    private final LocalFallback local;

    private final RedisConnector redis;

    /** Sends what nobody waits for, in order. */
    private final ExecutorService sender;

    private final Map<String, RedisBucket> buckets = new ConcurrentHashMap<>();

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
     * @param timeSource what this instance shows of the buckets between answers and the
     * local buckets standing in for Redis (its wall clock), and the back-off (its
     * monotonic clock); the shared buckets run on the Redis server's time
     */
    public RedisBucketStore(AbstractRedisClient client, String keyPrefix, OnFailure onFailure, Duration timeout,
            Duration retryInterval, TimeSource timeSource) {
        this(client, keyPrefix, onFailure, timeout, retryInterval, timeSource, null);
    }

    /**
     * Creates a store whose shared buckets run on the given clock rather than the Redis
     * server's: a test stands a fake clock it moves in for the server's, which every
     * instance of the test shares.
     * @param client the client to open the store's connection with; it stays the caller's
     * @param keyPrefix prefix of the Redis keys
     * @param onFailure what to do without Redis
     * @param timeout longest wait for one Redis command, and for the connection
     * @param retryInterval how long to do without Redis after a failure
     * @param timeSource this instance's time, as for the other constructor
     * @param serverClock the shared buckets' time, {@code null} for the Redis server's
     */
    public RedisBucketStore(AbstractRedisClient client, String keyPrefix, OnFailure onFailure, Duration timeout,
            Duration retryInterval, TimeSource timeSource, @Nullable Clock serverClock) {
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
        this.timeout = timeout;
        this.timeSource = timeSource;
        this.serverClock = serverClock;
        this.local = new LocalFallback(timeSource);
        this.sender = Executors.newSingleThreadExecutor((runnable) -> {
            Thread thread = new Thread(runnable, "llm-throttle-redis-send");
            thread.setDaemon(true);
            return thread;
        });
        String withoutRedis = (onFailure == OnFailure.LOCAL) ? "serving calls from local buckets" : "rejecting calls";
        this.redis = new RedisConnector(client, timeout, retryInterval, withoutRedis, timeSource);
    }

    @Override
    public TokenBucket bucket(String key, long limitPerMinute) {
        RedisBucket bucket = this.buckets.computeIfAbsent(key,
                (k) -> new RedisBucket(this, this.keyPrefix + ":" + k, k, limitPerMinute));
        bucket.reconfigure(limitPerMinute);
        return bucket;
    }

    @Override
    public void forget(String key) {
        this.buckets.remove(key);
    }

    @Override
    public Take take(List<TokenBucket> handles, long[] costs, int modelBuckets, Runnable givenBack)
            throws InterruptedException {
        RedisBucket[] buckets = handles.stream().map(RedisBucket.class::cast).toArray(RedisBucket[]::new);
        if (Thread.interrupted()) {
            throw new InterruptedException("Interrupted before taking buckets from Redis");
        }
        Connection connection = this.redis.available();
        if (Thread.interrupted()) {
            throw new InterruptedException("Interrupted before taking buckets from Redis");
        }
        Throwable cause = null;
        if (connection != null) {
            long now = nowMicros();
            CompletableFuture<Reply> command = RedisBucketScript.run(connection.commands(), Operation.TAKE, serverNow(),
                    modelBuckets, buckets, costs, pauseKey(buckets[0].key));
            // a late command's, or that of a caller interrupted while waiting (which says
            // nothing about Redis), is given back once it answers
            RedisConnector.Answer<Reply> answer = this.redis.await(connection, command,
                    (late) -> giveBackIfTaken(late, connection, buckets, costs, givenBack));
            Reply reply = answer.reply();
            if (reply != null) {
                observe(buckets, reply, now);
                if (reply.taken()) {
                    return new Take(new RedisSettlement(connection, buckets), 0, 0);
                }
                return new Take(null, nanos(reply.modelWaitMicros()), nanos(reply.tenantWaitMicros()),
                        nanos(reply.pauseWaitMicros()));
            }
            cause = answer.failure();
        }
        if (this.onFailure == OnFailure.REJECT) {
            throw new BucketStoreUnavailableException("Redis bucket store unavailable", this.redis.untilRetry(), cause);
        }
        return this.local.take(buckets, costs, modelBuckets);
    }

    /**
     * Whether the store is serving calls without Redis now (until Redis answers again).
     * @return whether an outage is going on
     */
    public boolean isUnavailable() {
        return this.redis.isDown();
    }

    /** The store's connection, for a {@link RedisQuotaStore} to share. */
    RedisConnector connector() {
        return this.redis;
    }

    /** What the store does without Redis. */
    OnFailure onFailure() {
        return this.onFailure;
    }

    /** The time of the buckets and of the back-off. */
    TimeSource timeSource() {
        return this.timeSource;
    }

    /** The time of the shared buckets, {@code null} for the Redis server's. */
    @Nullable Clock serverClock() {
        return this.serverClock;
    }

    /** The longest wait for one Redis command. */
    Duration timeout() {
        return this.timeout;
    }

    /** Closes the store's connection; the client stays open. */
    @Override
    public void close() {
        this.sender.shutdown();
        this.redis.close();
    }

    @Override
    public void pause(String modelKey, Duration wait, Duration spacing) {
        Connection connection = this.redis.current();
        if (connection == null) {
            return;
        }
        // sent at once from the caller's thread (Lettuce only queues it), ahead of the
        // store's own queue of settlements: every take the pause misses is a call sent
        RedisBucketScript
            .pause(connection.commands(), serverNow(), this.keyPrefix + ":" + modelKey + ":pause", micros(wait),
                    micros(spacing), this.instanceId)
            .orTimeout(this.timeout.toNanos(), TimeUnit.NANOSECONDS)
            .whenComplete((reply, failure) -> {
                if (failure != null) {
                    logger.debug("A pause could not be shared through Redis", failure);
                }
            });
    }

    /**
     * The key of the model's shared pause, in the slot of its buckets: the hash tag a
     * bucket key starts with ({@code BucketKeys}), {@code null} for a key without one.
     */
    private @Nullable String pauseKey(String bucketKey) {
        int end = bucketKey.indexOf('}');
        return (bucketKey.startsWith("{") && end > 0)
                ? this.keyPrefix + ":" + bucketKey.substring(0, end + 1) + ":pause" : null;
    }

    private @Nullable Long serverNow() {
        return (this.serverClock != null) ? micros(this.serverClock.instant()) : null;
    }

    /**
     * Sends a command nobody waits for, from the store's own thread, on
     * {@code connection} if it is still open; {@code applied} runs with its answer.
     */
    private void send(Connection connection, Operation operation, RedisBucket[] buckets, long[] amounts,
            @Nullable Runnable applied) {
        try {
            this.sender.execute(() -> {
                if (!connection.connection().isOpen()) {
                    logger.debug("Redis connection lost: a change of the shared buckets was dropped");
                    return;
                }
                long now = nowMicros();
                RedisBucketScript
                    .run(connection.commands(), operation, serverNow(), buckets.length, buckets, amounts, null)
                    .orTimeout(this.timeout.toNanos(), TimeUnit.NANOSECONDS)
                    .whenComplete((reply, failure) -> {
                        if (failure != null) {
                            this.redis.commandFailed(connection, failure);
                            return;
                        }
                        this.redis.answered();
                        observe(buckets, reply, now);
                        if (applied != null) {
                            execute(applied);
                        }
                    });
            });
        }
        catch (RejectedExecutionException ex) {
            // closed
        }
    }

    private void execute(Runnable task) {
        try {
            this.sender.execute(task);
        }
        catch (RejectedExecutionException ex) {
            // closed
        }
    }

    /** Gives back what a late or abandoned take took. */
    private void giveBackIfTaken(Reply reply, Connection connection, RedisBucket[] buckets, long[] costs,
            Runnable givenBack) {
        if (reply.taken()) {
            long[] giveBack = new long[costs.length];
            for (int i = 0; i < costs.length; i++) {
                giveBack[i] = -costs[i];
            }
            send(connection, Operation.ADJUST, buckets, giveBack, givenBack);
        }
    }

    private static void observe(RedisBucket[] buckets, Reply reply, long atMicros) {
        for (int i = 0; i < buckets.length; i++) {
            buckets[i].observe(reply.levels()[i], atMicros, reply.caps()[i]);
        }
    }

    private static long nanos(long micros) {
        if (micros < 0) {
            return Long.MAX_VALUE;
        }
        return (micros > Long.MAX_VALUE / 1000) ? Long.MAX_VALUE : micros * 1000;
    }

    /**
     * Sends one change of a bucket to Redis if it answers, else to the local bucket (or
     * drops it, rejecting), without waiting.
     */
    void change(RedisBucket bucket, Operation operation, long amount) {
        Connection connection = this.redis.current();
        if (connection != null) {
            send(connection, operation, new RedisBucket[] { bucket }, new long[] { amount }, null);
        }
        else if (this.onFailure == OnFailure.LOCAL) {
            this.local.change(bucket, operation, amount);
        }
    }

    long nowMicros() {
        return micros(this.timeSource.instant());
    }

    private static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1000;
    }

    private static long micros(Duration duration) {
        return duration.isNegative() ? 0 : Nanos.of(duration) / 1000;
    }

    long nextVersion() {
        // The server's time as this instance knows it: every instance orders by one
        // clock.
        long millis = (this.serverClock != null) ? this.serverClock.millis()
                : this.redis.serverInstant().toEpochMilli();
        return this.lastVersion.updateAndGet((last) -> Math.max(last + 1, millis));
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (IOException ex) {
            return "unknown-host";
        }
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

    /** The settlement of a reservation taken from Redis: to the same connection. */
    private final class RedisSettlement implements Settlement {

        private final Connection connection;

        private final RedisBucket[] buckets;

        RedisSettlement(Connection connection, RedisBucket[] buckets) {
            this.connection = connection;
            this.buckets = buckets;
        }

        @Override
        public void adjust(long[] amounts, Runnable givenBack) {
            boolean givesBack = false;
            for (long amount : amounts) {
                givesBack |= amount < 0;
            }
            send(this.connection, Operation.ADJUST, this.buckets, amounts, givesBack ? givenBack : null);
        }

    }

}
