package io.github.llmthrottle.limit;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import io.github.llmthrottle.time.TimeSource;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.StringCodec;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Quota counters shared through Redis ({@code llm.throttle.store=redis}): one integer key
 * per quota and window under {@code KEY_PREFIX:{quota}:...} (the hash tag keeps every
 * counter in one cluster slot, so that one script can take several), expiring a day after
 * its window has ended. A reservation checks and increments every counter of a call in
 * one Lua script, all or nothing; a settlement is an {@code INCRBY} of the difference on
 * each. Both are one round trip.
 *
 * <p>
 * It has a connection of its own, opened on first use. When Redis cannot be reached (no
 * connection, a command failing or taking longer than the timeout) it does without Redis
 * for the retry interval: counting in a local store ({@code on-failure: local}, the
 * counts of the outage then only this instance's) or refusing reservations with
 * {@link BucketStoreUnavailableException} ({@code on-failure: reject}); settlements are
 * then dropped, they never fail a call.
 */
public final class RedisQuotaStore implements QuotaStore, AutoCloseable {

    private static final Log logger = LogFactory.getLog(RedisQuotaStore.class);

    /**
     * Checks every counter, then adds to all or to none; 0 when added, else the index.
     */
    private static final String TRY_ADD = """
            local n = #KEYS
            local tokens = tonumber(ARGV[1])
            for i = 1, n do
              local used = tonumber(redis.call('GET', KEYS[i]) or '0')
              if used + tokens > tonumber(ARGV[1 + i]) then
                return i
              end
            end
            for i = 1, n do
              redis.call('INCRBY', KEYS[i], tokens)
              redis.call('PEXPIREAT', KEYS[i], ARGV[1 + n + i])
            end
            return 0
            """;

    private static final String ADD = """
            for i = 1, #KEYS do
              redis.call('INCRBY', KEYS[i], ARGV[1])
              redis.call('PEXPIREAT', KEYS[i], ARGV[1 + i])
            end
            return 0
            """;

    /** How long a counter outlives its window, so that the endpoint still sees it. */
    private static final Duration KEEP_AFTER_WINDOW = Duration.ofDays(1);

    private final AbstractRedisClient client;

    private final String keyPrefix;

    private final boolean rejectOnFailure;

    private final Duration timeout;

    private final long retryIntervalNanos;

    private final TimeSource timeSource;

    private final LocalQuotaStore local;

    private final ReentrantLock connectLock = new ReentrantLock();

    private volatile @Nullable StatefulConnection<String, String> connection;

    /** Whether Redis failed, and until when it is done without. */
    private volatile boolean down;

    private volatile long downUntil;

    private volatile boolean closed;

    /**
     * Creates a store on its own connection from {@code client}.
     * @param client a Lettuce {@link RedisClient} or {@link RedisClusterClient}
     * @param keyPrefix prefix of every key ({@code llm.throttle.redis.key-prefix})
     * @param rejectOnFailure whether to refuse reservations while Redis cannot be reached
     * rather than count locally
     * @param timeout longest wait for one command
     * @param retryInterval how long to do without Redis after a failure
     * @param timeSource the wall clock of the local counters, the monotonic clock of the
     * back-off
     */
    public RedisQuotaStore(AbstractRedisClient client, String keyPrefix, boolean rejectOnFailure, Duration timeout,
            Duration retryInterval, TimeSource timeSource) {
        if (!(client instanceof RedisClient) && !(client instanceof RedisClusterClient)) {
            throw new IllegalArgumentException("Unsupported Lettuce client " + client.getClass().getName());
        }
        this.client = client;
        this.keyPrefix = keyPrefix;
        this.rejectOnFailure = rejectOnFailure;
        this.timeout = timeout;
        this.retryIntervalNanos = retryInterval.toNanos();
        this.timeSource = timeSource;
        this.local = new LocalQuotaStore(timeSource.clock());
    }

    @Override
    public int tryAdd(List<Counter> counters, long tokens) {
        StatefulConnection<String, String> redis = available();
        if (redis != null) {
            try {
                Long result = eval(redis, TRY_ADD, keys(counters), tryAddArguments(counters, tokens));
                return (result == null || result == 0) ? -1 : (int) (result - 1);
            }
            catch (RuntimeException ex) {
                failed(ex);
            }
        }
        if (this.rejectOnFailure) {
            throw new BucketStoreUnavailableException("Redis quota store unavailable",
                    Duration.ofNanos(this.retryIntervalNanos), null);
        }
        return this.local.tryAdd(counters, tokens);
    }

    @Override
    public void add(List<Counter> counters, long tokens) {
        if (tokens == 0 || counters.isEmpty()) {
            return;
        }
        StatefulConnection<String, String> redis = available();
        if (redis != null) {
            try {
                List<String> arguments = new ArrayList<>();
                arguments.add(Long.toString(tokens));
                counters.forEach((counter) -> arguments.add(expiry(counter)));
                eval(redis, ADD, keys(counters), arguments);
                return;
            }
            catch (RuntimeException ex) {
                failed(ex);
            }
        }
        if (!this.rejectOnFailure) {
            this.local.add(counters, tokens);
        }
    }

    @Override
    public long used(String key) {
        StatefulConnection<String, String> redis = available();
        if (redis != null) {
            try {
                String value = get(redis, redisKey(key));
                return (value != null) ? Long.parseLong(value) : 0;
            }
            catch (RuntimeException ex) {
                failed(ex);
            }
        }
        return this.local.used(key);
    }

    private List<String> keys(List<Counter> counters) {
        List<String> keys = new ArrayList<>(counters.size());
        counters.forEach((counter) -> keys.add(redisKey(counter.key())));
        return keys;
    }

    private String redisKey(String key) {
        return this.keyPrefix + ":{quota}:" + key;
    }

    private static List<String> tryAddArguments(List<Counter> counters, long tokens) {
        List<String> arguments = new ArrayList<>(1 + 2 * counters.size());
        arguments.add(Long.toString(tokens));
        counters.forEach((counter) -> arguments.add(Long.toString(counter.limit())));
        counters.forEach((counter) -> arguments.add(expiry(counter)));
        return arguments;
    }

    private static String expiry(Counter counter) {
        return Long.toString(counter.expiresAt().plus(KEEP_AFTER_WINDOW).toEpochMilli());
    }

    @SuppressWarnings("unchecked")
    private @Nullable Long eval(StatefulConnection<String, String> redis, String script, List<String> keys,
            List<String> arguments) {
        String[] keyArray = keys.toArray(String[]::new);
        String[] argumentArray = arguments.toArray(String[]::new);
        Object result = (redis instanceof StatefulRedisConnection<?, ?> standalone)
                ? ((StatefulRedisConnection<String, String>) standalone).sync()
                    .eval(script, ScriptOutputType.INTEGER, keyArray, argumentArray)
                : ((StatefulRedisClusterConnection<String, String>) redis).sync()
                    .eval(script, ScriptOutputType.INTEGER, keyArray, argumentArray);
        return (Long) result;
    }

    @SuppressWarnings("unchecked")
    private @Nullable String get(StatefulConnection<String, String> redis, String key) {
        return (redis instanceof StatefulRedisConnection<?, ?> standalone)
                ? ((StatefulRedisConnection<String, String>) standalone).sync().get(key)
                : ((StatefulRedisClusterConnection<String, String>) redis).sync().get(key);
    }

    /** The connection, opened if need be, or {@code null} while doing without Redis. */
    private @Nullable StatefulConnection<String, String> available() {
        if (this.closed) {
            return null;
        }
        if (this.down) {
            if (this.timeSource.nanoTime() - this.downUntil < 0) {
                return null;
            }
            // the retry interval is over: try Redis again
            this.down = false;
        }
        StatefulConnection<String, String> current = this.connection;
        if (current != null && current.isOpen()) {
            return current;
        }
        this.connectLock.lock();
        try {
            current = this.connection;
            if (current == null || !current.isOpen()) {
                if (current != null) {
                    current.close();
                }
                current = (this.client instanceof RedisClient standalone) ? standalone.connect(StringCodec.UTF8)
                        : ((RedisClusterClient) this.client).connect(StringCodec.UTF8);
                current.setTimeout(this.timeout);
                this.connection = current;
            }
            return current;
        }
        catch (RuntimeException ex) {
            failed(ex);
            return null;
        }
        finally {
            this.connectLock.unlock();
        }
    }

    private void failed(RuntimeException ex) {
        if (Thread.currentThread().isInterrupted()) {
            // an interrupted caller says nothing about Redis
            return;
        }
        boolean wasUp = !this.down;
        this.downUntil = this.timeSource.nanoTime() + this.retryIntervalNanos;
        this.down = true;
        if (wasUp) {
            logger.warn("Redis quota store unavailable, "
                    + (this.rejectOnFailure ? "refusing calls with a quota" : "counting quotas in this instance")
                    + " for " + TimeUnit.NANOSECONDS.toMillis(this.retryIntervalNanos) + " ms: " + ex);
        }
    }

    @Override
    public void close() {
        this.closed = true;
        StatefulConnection<String, String> current = this.connection;
        if (current != null) {
            current.close();
        }
    }

}
