package io.github.llmthrottle.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.limit.Dimension;
import io.github.llmthrottle.quota.LocalQuotaStore;
import io.github.llmthrottle.quota.QuotaStore;
import io.github.llmthrottle.store.BucketStoreUnavailableException;
import io.github.llmthrottle.store.redis.RedisConnector.Connection;
import io.github.llmthrottle.time.TimeSource;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.RedisClusterClient;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Quota counters shared through Redis ({@code llm.throttle.store=redis}): one integer key
 * per quota and window under {@code KEY_PREFIX:{quota}:...} (the hash tag keeps every
 * counter in one cluster slot, so that one script can take several), expiring a day after
 * its window has ended. A reservation checks and increments every counter of a call in
 * one Lua script, all or nothing; a correction adds the difference to each. Both are one
 * round trip, and each answer says what the counters hold.
 *
 * <p>
 * It follows the discipline of the {@link RedisBucketStore}, and shares its connection
 * when built on one ({@link #RedisQuotaStore(RedisBucketStore, String)}):
 * <ul>
 * <li>Only the caller whose quota is reserved waits for Redis, on its own thread, for at
 * most the timeout; corrections are sent without waiting, by a thread of the store's own,
 * to where the reservation was taken (the same connection, or the local counters that
 * stood in for Redis).</li>
 * <li>What the counters hold ({@link #used}, read by the gauges, the health indicator and
 * the endpoint) is what the last answer about them said (plus what was counted locally
 * while Redis did not answer); a read of a counter whose last answer is older than a
 * second asks Redis again in the background, without waiting.</li>
 * <li>A command that fails or answers later than the timeout fails only its own call:
 * counted in a local store of the same counters
 * ({@link RedisBucketStore.OnFailure#LOCAL}, the counts then only this instance's) or
 * refused with {@link BucketStoreUnavailableException}
 * ({@link RedisBucketStore.OnFailure#REJECT}); what a late command, or that of a caller
 * interrupted while waiting for it, took is given back when it answers (and expires with
 * its counter if no answer ever comes). When Redis cannot be reached every call does
 * without it for the retry interval, as {@link RedisConnector} describes.</li>
 * </ul>
 */
public final class RedisQuotaStore implements QuotaStore, AutoCloseable {

    private static final Log logger = LogFactory.getLog(RedisQuotaStore.class);

    /**
     * Checks every counter, then adds to all or to none. Answers the index of the counter
     * that would go over (0 when added), then what each counter holds.
     */
    private static final String TRY_ADD = """
            local n = #KEYS
            local tokens = tonumber(ARGV[1])
            local used = {}
            for i = 1, n do
              used[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
            end
            for i = 1, n do
              if used[i] + tokens > tonumber(ARGV[1 + i]) then
                local reply = {i}
                for j = 1, n do
                  reply[j + 1] = used[j]
                end
                return reply
              end
            end
            local reply = {0}
            for i = 1, n do
              reply[i + 1] = redis.call('INCRBY', KEYS[i], tokens)
              redis.call('PEXPIREAT', KEYS[i], ARGV[1 + n + i])
            end
            return reply
            """;

    /** Adds to every counter; answers 0, then what each counter holds. */
    private static final String ADD = """
            local reply = {0}
            for i = 1, #KEYS do
              reply[i + 1] = redis.call('INCRBY', KEYS[i], ARGV[1])
              redis.call('PEXPIREAT', KEYS[i], ARGV[1 + i])
            end
            return reply
            """;

    /** Answers 0, then what the counter holds. */
    private static final String GET = """
            return {0, tonumber(redis.call('GET', KEYS[1]) or '0')}
            """;

    /** How long a counter outlives its window, so that the endpoint still sees it. */
    private static final Duration KEEP_AFTER_WINDOW = Duration.ofDays(1);

    /** How old the last answer about a counter may be before a read asks again. */
    private static final long REFRESH_AFTER_NANOS = Duration.ofSeconds(1).toNanos();

    /** Most counters whose last answer is remembered; beyond, reads do not ask Redis. */
    static final int MAX_SEEN = 10_000;

    private final String keyPrefix;

    private final boolean rejectOnFailure;

    private final Duration timeout;

    private final TimeSource timeSource;

    private final LocalQuotaStore local;

    private final RedisConnector redis;

    /** Whether the connection is this store's own, to close with it. */
    private final boolean ownsConnection;

    /** Sends what nobody waits for, in order. */
    private final ExecutorService sender;

    /** The last answer about each counter, by key. */
    private final Map<String, Seen> seen = new ConcurrentHashMap<>();

    /** Counters being read again in the background. */
    private final Set<String> refreshing = ConcurrentHashMap.newKeySet();

    /**
     * Creates a store on a connection of its own from {@code client}, and starts
     * connecting (waiting for the connection for at most the client's connect timeout).
     * @param client a Lettuce {@link RedisClient} or {@link RedisClusterClient}; it stays
     * the caller's
     * @param keyPrefix prefix of every key ({@code llm.throttle.redis.key-prefix})
     * @param rejectOnFailure whether to refuse reservations while Redis cannot be reached
     * rather than count locally
     * @param timeout longest wait for one command
     * @param retryInterval how long to do without Redis after a failure
     * @param timeSource the wall clock of the counters' windows, the monotonic clock of
     * the back-off
     */
    public RedisQuotaStore(AbstractRedisClient client, String keyPrefix, boolean rejectOnFailure, Duration timeout,
            Duration retryInterval, TimeSource timeSource) {
        this(keyPrefix, rejectOnFailure, timeout, timeSource,
                new RedisConnector(checked(client), checkedTimeout(timeout), retryInterval,
                        rejectOnFailure ? "rejecting calls" : "counting quotas in this instance", timeSource),
                true);
    }

    /**
     * Creates a store on the connection of a bucket store, with its timeout, back-off and
     * behaviour without Redis: one connection, one outage, for both.
     * @param buckets the bucket store whose connection to share; it closes the connection
     * @param keyPrefix prefix of every key ({@code llm.throttle.redis.key-prefix})
     */
    public RedisQuotaStore(RedisBucketStore buckets, String keyPrefix) {
        this(keyPrefix, buckets.onFailure() == RedisBucketStore.OnFailure.REJECT, buckets.timeout(),
                buckets.timeSource(), buckets.connector(), false);
    }

    private RedisQuotaStore(String keyPrefix, boolean rejectOnFailure, Duration timeout, TimeSource timeSource,
            RedisConnector redis, boolean ownsConnection) {
        this.keyPrefix = keyPrefix;
        this.rejectOnFailure = rejectOnFailure;
        this.timeout = timeout;
        this.timeSource = timeSource;
        this.local = new LocalQuotaStore(timeSource.clock());
        this.redis = redis;
        this.ownsConnection = ownsConnection;
        this.sender = Executors.newSingleThreadExecutor((runnable) -> {
            Thread thread = new Thread(runnable, "llm-throttle-redis-quota-send");
            thread.setDaemon(true);
            return thread;
        });
    }

    private static AbstractRedisClient checked(AbstractRedisClient client) {
        if (!(client instanceof RedisClient) && !(client instanceof RedisClusterClient)) {
            throw new IllegalArgumentException("Unsupported Lettuce client " + client.getClass().getName());
        }
        return client;
    }

    private static Duration checkedTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        return timeout;
    }

    @Override
    public Take take(List<Counter> counters, long tokens) {
        if (Thread.currentThread().isInterrupted()) {
            // The call ends with the interruption at its admission, which follows:
            // nothing is counted for it.
            return new Take(-1, Correction.NONE);
        }
        Connection connection = this.redis.available();
        Throwable cause = null;
        if (connection != null) {
            CompletableFuture<List<Object>> command = run(connection, TRY_ADD, counters,
                    tryAddArguments(counters, tokens));
            RedisConnector.Answer<List<Object>> answer;
            try {
                // a late command's, or that of a caller interrupted while waiting (which
                // says nothing about Redis), is given back once it answers
                answer = this.redis.await(connection, command,
                        (late) -> giveBackIfTaken(late, connection, counters, tokens));
            }
            catch (InterruptedException ex) {
                // The call ends with the interruption, as above.
                Thread.currentThread().interrupt();
                return new Take(-1, Correction.NONE);
            }
            List<Object> reply = answer.reply();
            if (reply != null) {
                observe(counters, reply);
                int exceeded = (int) number(reply.get(0)) - 1;
                return (exceeded >= 0) ? Take.refused(exceeded)
                        : new Take(-1, (delta) -> send(connection, counters, delta));
            }
            cause = answer.failure();
        }
        if (this.rejectOnFailure) {
            throw new BucketStoreUnavailableException("Redis quota store unavailable", this.redis.untilRetry(), cause);
        }
        int exceeded = this.local.tryAdd(counters, tokens);
        return (exceeded >= 0) ? Take.refused(exceeded) : new Take(-1, (delta) -> this.local.add(counters, delta));
    }

    @Override
    public int tryAdd(List<Counter> counters, long tokens) {
        return take(counters, tokens).exceeded();
    }

    @Override
    public void add(List<Counter> counters, long tokens) {
        if (tokens == 0 || counters.isEmpty()) {
            return;
        }
        Connection connection = this.redis.current();
        if (connection != null) {
            send(connection, counters, tokens);
        }
        else if (!this.rejectOnFailure) {
            this.local.add(counters, tokens);
        }
    }

    /**
     * What a counter holds as of the last answer about it, plus what was counted in this
     * instance while Redis did not answer; never waits for Redis.
     */
    @Override
    public long used(String key) {
        Seen seen = this.seen.get(key);
        long now = this.timeSource.nanoTime();
        if (seen == null || now - seen.atNanos() > REFRESH_AFTER_NANOS) {
            refresh(key);
        }
        long shared = (seen != null) ? seen.used() : 0;
        return Dimension.saturatedAdd(shared, this.local.used(key));
    }

    @Override
    public void forget(List<Counter> counters) {
        counters.forEach((counter) -> this.seen.remove(counter.key()));
        this.local.forget(counters);
    }

    /**
     * Whether the store is doing without Redis now (until Redis answers again).
     * @return whether an outage is going on
     */
    public boolean isUnavailable() {
        return this.redis.isDown();
    }

    /** Stops sending; closes the connection if it is this store's own. */
    @Override
    public void close() {
        this.sender.shutdown();
        if (this.ownsConnection) {
            this.redis.close();
        }
    }

    /**
     * Waits until every correction sent so far has been answered (Redis answers the
     * commands of one connection in order): for tests.
     */
    void awaitSent() throws Exception {
        Connection connection = this.redis.current();
        if (connection != null) {
            CompletableFuture<CompletableFuture<List<Object>>> sent = new CompletableFuture<>();
            execute(() -> sent.complete(run(connection, "return {0}", List.of(), List.of())), null);
            sent.get(this.timeout.toNanos(), TimeUnit.NANOSECONDS).get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    /** Asks Redis what a counter holds, in the background, if it answers now. */
    private void refresh(String key) {
        if (this.seen.size() >= MAX_SEEN && !this.seen.containsKey(key)) {
            dropExpired();
            if (this.seen.size() >= MAX_SEEN) {
                return;
            }
        }
        Connection connection = this.redis.current();
        if (connection == null || !this.refreshing.add(key)) {
            return;
        }
        Counter counter = new Counter(key, Long.MAX_VALUE,
                this.timeSource.instant().plus(KEEP_AFTER_WINDOW).plus(KEEP_AFTER_WINDOW));
        execute(() -> run(connection, GET, List.of(counter), List.of())
            .orTimeout(this.timeout.toNanos(), TimeUnit.NANOSECONDS)
            .whenComplete((reply, failure) -> {
                this.refreshing.remove(key);
                answered(connection, List.of(counter), reply, failure);
            }), () -> this.refreshing.remove(key));
    }

    /** Sends a correction nobody waits for, on the connection of its reservation. */
    private void send(Connection connection, List<Counter> counters, long tokens) {
        if (tokens == 0) {
            return;
        }
        List<String> arguments = new ArrayList<>(1 + counters.size());
        arguments.add(Long.toString(tokens));
        counters.forEach((counter) -> arguments.add(expiry(counter)));
        execute(() -> {
            if (!connection.connection().isOpen()) {
                logger.debug("Redis connection lost: a correction of the shared quotas was dropped");
                return;
            }
            run(connection, ADD, counters, arguments).orTimeout(this.timeout.toNanos(), TimeUnit.NANOSECONDS)
                .whenComplete((reply, failure) -> answered(connection, counters, reply, failure));
        }, null);
    }

    private void answered(Connection connection, List<Counter> counters, @Nullable List<Object> reply,
            @Nullable Throwable failure) {
        if (failure != null || reply == null) {
            this.redis.commandFailed(connection, (failure != null) ? failure : new IllegalStateException("No reply"));
            return;
        }
        this.redis.answered();
        observe(counters, reply);
    }

    /** Gives back what a late or abandoned reservation took. */
    private void giveBackIfTaken(List<Object> reply, Connection connection, List<Counter> counters, long tokens) {
        if (number(reply.get(0)) == 0) {
            send(connection, counters, -tokens);
        }
    }

    private void execute(Runnable task, @Nullable Runnable rejected) {
        try {
            this.sender.execute(task);
        }
        catch (RejectedExecutionException ex) {
            // closed
            if (rejected != null) {
                rejected.run();
            }
        }
    }

    private void observe(List<Counter> counters, List<Object> reply) {
        long now = this.timeSource.nanoTime();
        for (int i = 0; i < counters.size() && i + 1 < reply.size(); i++) {
            Counter counter = counters.get(i);
            this.seen.put(counter.key(), new Seen(number(reply.get(i + 1)), counter.expiresAt().toEpochMilli(), now));
        }
        if (this.seen.size() > MAX_SEEN) {
            dropExpired();
        }
    }

    private void dropExpired() {
        long now = this.timeSource.instant().toEpochMilli();
        this.seen.values().removeIf((seen) -> seen.expiresAt() <= now);
    }

    private CompletableFuture<List<Object>> run(Connection connection, String script, List<Counter> counters,
            List<String> arguments) {
        String[] keys = new String[counters.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = redisKey(counters.get(i).key());
        }
        return connection.commands()
            .<List<Object>>eval(script, ScriptOutputType.MULTI, keys, arguments.toArray(String[]::new))
            .toCompletableFuture();
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

    private static long number(@Nullable Object value) {
        return (value instanceof Number number) ? number.longValue() : 0;
    }

    @Override
    public String toString() {
        return "RedisQuotaStore[keyPrefix=" + this.keyPrefix + ", onFailure="
                + (this.rejectOnFailure ? "reject" : "local") + "]";
    }

    /**
     * What Redis last said a counter holds.
     *
     * @param used the count
     * @param expiresAt when the counter may be forgotten, in epoch millis
     * @param atNanos when the answer came, on the monotonic clock
     */
    private record Seen(long used, long expiresAt, long atNanos) {
    }

}
