package io.github.llmthrottle.store.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.store.BucketStoreUnavailableException;
import io.github.llmthrottle.store.Settlement;
import io.github.llmthrottle.store.SharedBucketStore;
import io.github.llmthrottle.store.TokenBucket;
import io.github.llmthrottle.store.WaitingDemand;
import io.github.llmthrottle.store.redis.RedisBucketScript.Operation;
import io.github.llmthrottle.store.redis.RedisBucketScript.Priorities;
import io.github.llmthrottle.store.redis.RedisConnector.Connection;
import io.github.llmthrottle.time.TimeSource;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
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

    private static final AtomicInteger STORES = new AtomicInteger();

    private final String keyPrefix;

    private final OnFailure onFailure;

    private final Duration timeout;

    private final TimeSource timeSource;

    /** Who reports demand per priority: each store is one (two in a JVM are two). */
    private final String demandId;

    /** The time of the shared buckets, {@code null} for the Redis server's. */
    private final @Nullable Clock serverClock;

    /**
     * The local buckets that stand in for the shared ones while Redis does not answer.
     */
    private final LocalFallback local;

    private final RedisConnector redis;

    /** Sends what nobody waits for, in order. */
    private final RedisBucketSender sender;

    private final Map<String, RedisBucket> buckets = new ConcurrentHashMap<>();

    private final AtomicLong lastVersion = new AtomicLong();

    /** The pauses after a 429 it shares, and what it knows of them. */
    private final RedisPauses pauses;

    /**
     * Creates a store on a Lettuce client ({@link RedisClient} or
     * {@link RedisClusterClient}) and starts connecting.
     * @param client the client to open the store's connection with; it stays the caller's
     * @param keyPrefix prefix of the Redis keys ({@code llm.throttle.redis.key-prefix})
     * @param onFailure what to do without Redis ({@code llm.throttle.redis.on-failure})
     * @param timeout longest wait for one Redis command, and for the connection
     * @param retryInterval how long to do without Redis after a failure
     * @param timeSource what this instance shows of the buckets between answers and the
     * local buckets standing in for Redis (its wall clock), and the back-off (its
     * monotonic clock); the shared buckets run on the Redis server's time
     */
    public RedisBucketStore(AbstractRedisClient client, String keyPrefix, OnFailure onFailure, Duration timeout,
            Duration retryInterval, TimeSource timeSource) {
        this(client, keyPrefix, onFailure, timeout, retryInterval, timeSource, null);
    }

    /**
     * Creates a store whose shared buckets run on {@code serverClock}, not the Redis
     * server's time: a test's fake clock, shared by every instance of the test.
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
        this(client, keyPrefix, onFailure, timeout, retryInterval, timeSource, serverClock, null);
    }

    /**
     * Creates a store, as the other constructors do, whose pauses name this instance
     * {@code instanceId} ({@code llm.throttle.redis.instance-id}).
     * @param client the client to open the store's connection with; it stays the caller's
     * @param keyPrefix prefix of the Redis keys
     * @param onFailure what to do without Redis
     * @param timeout longest wait for one Redis command, and for the connection
     * @param retryInterval how long to do without Redis after a failure
     * @param timeSource this instance's time
     * @param serverClock the shared buckets' time, {@code null} for the Redis server's
     * @param instanceId who pauses a model, as the other instances see it; {@code null}
     * for {@code pid@host}
     */
    public RedisBucketStore(AbstractRedisClient client, String keyPrefix, OnFailure onFailure, Duration timeout,
            Duration retryInterval, TimeSource timeSource, @Nullable Clock serverClock, @Nullable String instanceId) {
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
        this.pauses = new RedisPauses(this, instanceId);
        this.demandId = this.pauses.instanceId() + "/" + STORES.incrementAndGet();
        this.sender = new RedisBucketSender(this);
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
        return take(handles, costs, modelBuckets, null, givenBack);
    }

    @Override
    public Take take(List<TokenBucket> handles, long[] costs, int modelBuckets, @Nullable WaitingDemand waiting,
            Runnable givenBack) throws InterruptedException {
        RedisBucket[] buckets = handles.stream().map(RedisBucket.class::cast).toArray(RedisBucket[]::new);
        return take(buckets, costs, modelBuckets, this.pauses.keyOfBucket(buckets[0].key), waiting, givenBack);
    }

    /**
     * Asks Redis, as a take of no bucket, whether the model's pause holds a call of a
     * model without limits: the script answers it as it answers a take of the model's
     * buckets, so that another instance's pause holds it as soon as Redis holds it.
     */
    @Override
    public Take takeNone(String modelKey) throws InterruptedException {
        return take(new RedisBucket[0], new long[0], 0, this.pauses.keyOf(modelKey), null, () -> {
        });
    }

    private Take take(RedisBucket[] buckets, long[] costs, int modelBuckets, @Nullable String pauseKey,
            @Nullable WaitingDemand waiting, Runnable givenBack) throws InterruptedException {
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
            String demandKey = (buckets.length > 0) ? this.pauses.modelKeyOfBucket(buckets[0].key, ":demand") : null;
            Priorities priorities = (waiting != null && demandKey != null)
                    ? new Priorities(demandKey, this.demandId, waiting) : null;
            CompletableFuture<BucketReply> command = RedisBucketScript.run(connection.commands(), Operation.TAKE,
                    serverNow(), modelBuckets, buckets, costs, pauseKey, priorities);
            // a late command's, or that of a caller interrupted while waiting (which says
            // nothing about Redis), is given back once it answers
            RedisConnector.Answer<BucketReply> answer = this.redis.await(connection, command,
                    (late) -> this.sender.giveBackIfTaken(late, connection, buckets, costs, givenBack));
            BucketReply reply = answer.reply();
            if (reply != null) {
                RedisBucketSender.observe(buckets, reply, now);
                if (pauseKey != null) {
                    this.pauses.learned(pauseKey, this.timeSource.nanoTime(), RedisTime.nanos(reply.pauseWaitMicros()));
                }
                if (reply.taken()) {
                    return (buckets.length > 0) ? new Take(this.sender.settlement(connection, buckets), 0, 0)
                            : Take.withoutBuckets();
                }
                return new Take(null, RedisTime.nanos(reply.modelWaitMicros()),
                        RedisTime.nanos(reply.tenantWaitMicros()), RedisTime.nanos(reply.pauseWaitMicros()));
            }
            cause = answer.failure();
        }
        if (this.onFailure == OnFailure.REJECT) {
            throw new BucketStoreUnavailableException("Redis bucket store unavailable", this.redis.untilRetry(), cause);
        }
        long paused = (pauseKey != null) ? this.pauses.heldNanos(pauseKey) : 0;
        if (paused > 0) {
            // a pause this instance knows of holds without Redis too
            return new Take(null, paused, 0, paused);
        }
        return (buckets.length > 0) ? this.local.take(buckets, costs, modelBuckets) : Take.withoutBuckets();
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

    /** The prefix of the Redis keys. */
    String keyPrefix() {
        return this.keyPrefix;
    }

    /** Who pauses a model or opens a circuit, as the other instances see it. */
    String instanceId() {
        return this.pauses.instanceId();
    }

    /** Closes the store's connection; the client stays open. */
    @Override
    public void close() {
        this.sender.shutdown();
        this.redis.close();
    }

    @Override
    public CompletableFuture<Void> pause(String modelKey, Duration wait, Duration spacing) {
        return this.pauses.pause(this.pauses.keyOf(modelKey), RedisTime.micros(wait), RedisTime.micros(spacing));
    }

    @Override
    public long pausedNanos(String modelKey) {
        return this.pauses.pausedNanos(modelKey);
    }

    @Override
    public @Nullable SharedPause sharedPause(String modelKey) {
        return this.pauses.sharedPause(this.pauses.keyOf(modelKey));
    }

    /** The time to run the scripts on, {@code null} for the Redis server's. */
    @Nullable Long serverNow() {
        return (this.serverClock != null) ? RedisTime.micros(this.serverClock.instant()) : null;
    }

    /**
     * Sends one change of a bucket to Redis if it answers, else to the local bucket (or
     * drops it, rejecting), without waiting.
     */
    void change(RedisBucket bucket, Operation operation, long amount) {
        Connection connection = this.redis.current();
        if (connection != null) {
            this.sender.send(connection, operation, new RedisBucket[] { bucket }, new long[] { amount }, null);
        }
        else if (this.onFailure == OnFailure.LOCAL) {
            this.local.change(bucket, operation, amount);
        }
    }

    long nowMicros() {
        return RedisTime.micros(this.timeSource.instant());
    }

    long nextVersion() {
        // The server's time as this instance knows it: every instance orders by one
        // clock.
        long millis = (this.serverClock != null) ? this.serverClock.millis()
                : this.redis.serverInstant().toEpochMilli();
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

}
