package io.github.llmthrottle.store.redis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
import io.github.llmthrottle.store.redis.RedisQuotaScript.Operation;
import io.github.llmthrottle.store.redis.RedisQuotaScript.Reply;
import io.github.llmthrottle.time.TimeSource;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Quota counters shared through Redis ({@code llm.throttle.store=redis}): one integer key
 * per quota and window under {@code KEY_PREFIX:{quota}:...} (the hash tag keeps every
 * counter in one cluster slot, so that one script can take several), expiring a day after
 * its window has ended. A reservation checks and increments every counter of a call in
 * one Lua script ({@link RedisQuotaScript}), all or nothing; a correction adds the
 * difference to each. Both are one round trip, and each answer says what the counters
 * hold.
 *
 * <p>
 * Which day and month a call counts in, and when its counters expire, is the Redis
 * server's time, read inside the script, not this instance's: every instance counts in
 * the same window however far its clock is off. A correction goes to the counters its
 * reservation went to. A read of the window in force ({@link #used}) reads the server's
 * window, as far as this instance knows the server's time (from the last answer).
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

    /** How old the last answer about a counter may be before a read asks again. */
    private static final long REFRESH_AFTER_NANOS = Duration.ofSeconds(1).toNanos();

    /** Most counters whose last answer is remembered; beyond, reads do not ask Redis. */
    static final int MAX_SEEN = 10_000;

    private final String keyPrefix;

    private final boolean rejectOnFailure;

    private final Duration timeout;

    private final TimeSource timeSource;

    /** The counters' time, {@code null} for the Redis server's. */
    private final @Nullable Clock serverClock;

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
        this(client, keyPrefix, rejectOnFailure, timeout, retryInterval, timeSource, null);
    }

    /**
     * Creates a store whose counters' windows run on the given clock rather than the
     * Redis server's: a test stands a fake clock it moves in for the server's.
     * @param client a Lettuce {@link RedisClient} or {@link RedisClusterClient}
     * @param keyPrefix prefix of every key
     * @param rejectOnFailure whether to refuse reservations while Redis cannot be reached
     * @param timeout longest wait for one command
     * @param retryInterval how long to do without Redis after a failure
     * @param timeSource this instance's time, as for the other constructor
     * @param serverClock the counters' time, {@code null} for the Redis server's
     */
    public RedisQuotaStore(AbstractRedisClient client, String keyPrefix, boolean rejectOnFailure, Duration timeout,
            Duration retryInterval, TimeSource timeSource, @Nullable Clock serverClock) {
        this(keyPrefix, rejectOnFailure, timeout, timeSource, serverClock,
                new RedisConnector(checked(client), checkedTimeout(timeout), retryInterval,
                        rejectOnFailure ? "rejecting calls" : "counting quotas in this instance", timeSource),
                true);
    }

    /**
     * Creates a store on the connection of a bucket store, with its timeout, back-off,
     * behaviour without Redis and time: one connection, one outage, for both.
     * @param buckets the bucket store whose connection to share; it closes the connection
     * @param keyPrefix prefix of every key ({@code llm.throttle.redis.key-prefix})
     */
    public RedisQuotaStore(RedisBucketStore buckets, String keyPrefix) {
        this(keyPrefix, buckets.onFailure() == RedisBucketStore.OnFailure.REJECT, buckets.timeout(),
                buckets.timeSource(), buckets.serverClock(), buckets.connector(), false);
    }

    private RedisQuotaStore(String keyPrefix, boolean rejectOnFailure, Duration timeout, TimeSource timeSource,
            @Nullable Clock serverClock, RedisConnector redis, boolean ownsConnection) {
        this.keyPrefix = keyPrefix;
        this.rejectOnFailure = rejectOnFailure;
        this.timeout = timeout;
        this.timeSource = timeSource;
        this.serverClock = serverClock;
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
            CompletableFuture<Reply> command = run(connection, Operation.TRY_ADD, counters, false, tokens);
            RedisConnector.Answer<Reply> answer;
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
            Reply reply = answer.reply();
            if (reply != null) {
                List<Counter> counted = reply.resolved(counters);
                observe(counted, reply);
                return (reply.exceeded() >= 0)
                        ? Take.refused(reply.exceeded(), Instant.ofEpochMilli(reply.serverMillis()))
                        : new Take(-1, (delta) -> send(connection, counted, true, delta));
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
            send(connection, counters, false, tokens);
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
        String shown = serverWindow(key);
        Seen seen = this.seen.get(shown);
        long now = this.timeSource.nanoTime();
        if (seen == null || now - seen.atNanos() > REFRESH_AFTER_NANOS) {
            refresh(shown);
        }
        long shared = (seen != null) ? seen.used() : 0;
        return Dimension.saturatedAdd(shared, this.local.used(key));
    }

    @Override
    public void forget(List<Counter> counters) {
        counters.forEach((counter) -> this.seen.remove(serverWindow(counter.key())));
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
            CompletableFuture<CompletableFuture<Reply>> sent = new CompletableFuture<>();
            execute(() -> sent.complete(run(connection, Operation.GET, List.of(), true, 0)), null);
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
                this.timeSource.instant().plus(RedisQuotaScript.KEEP_AFTER_WINDOW.multipliedBy(2)));
        execute(() -> run(connection, Operation.GET, List.of(counter), true, 0)
            .orTimeout(this.timeout.toNanos(), TimeUnit.NANOSECONDS)
            .whenComplete((reply, failure) -> {
                this.refreshing.remove(key);
                answered(connection, List.of(counter), true, reply, failure);
            }), () -> this.refreshing.remove(key));
    }

    /**
     * Sends a correction nobody waits for, on the connection of its reservation: to the
     * counters it names if {@code resolved}, else to those of the server's window.
     */
    private void send(Connection connection, List<Counter> counters, boolean resolved, long tokens) {
        if (tokens == 0) {
            return;
        }
        execute(() -> {
            if (!connection.connection().isOpen()) {
                logger.debug("Redis connection lost: a correction of the shared quotas was dropped");
                return;
            }
            run(connection, Operation.ADD, counters, resolved, tokens)
                .orTimeout(this.timeout.toNanos(), TimeUnit.NANOSECONDS)
                .whenComplete((reply, failure) -> answered(connection, counters, resolved, reply, failure));
        }, null);
    }

    private void answered(Connection connection, List<Counter> counters, boolean resolved, @Nullable Reply reply,
            @Nullable Throwable failure) {
        if (failure != null || reply == null) {
            this.redis.commandFailed(connection, (failure != null) ? failure : new IllegalStateException("No reply"));
            return;
        }
        this.redis.answered();
        observe(resolved ? counters : reply.resolved(counters), reply);
    }

    /** Gives back what a late or abandoned reservation took. */
    private void giveBackIfTaken(Reply reply, Connection connection, List<Counter> counters, long tokens) {
        if (reply.exceeded() < 0) {
            send(connection, reply.resolved(counters), true, -tokens);
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

    private void observe(List<Counter> counters, Reply reply) {
        if (this.serverClock == null) {
            this.redis.serverTime(reply.serverMillis());
        }
        long now = this.timeSource.nanoTime();
        for (int i = 0; i < counters.size(); i++) {
            Counter counter = counters.get(i);
            this.seen.put(counter.key(), new Seen(reply.used()[i], counter.expiresAt().toEpochMilli(), now));
        }
        if (this.seen.size() > MAX_SEEN) {
            dropExpired();
        }
    }

    private void dropExpired() {
        long now = this.timeSource.instant().toEpochMilli();
        this.seen.values().removeIf((seen) -> seen.expiresAt() <= now);
    }

    private CompletableFuture<Reply> run(Connection connection, Operation operation, List<Counter> counters,
            boolean resolved, long tokens) {
        Long now = (this.serverClock != null) ? this.serverClock.millis() : null;
        return RedisQuotaScript.run(connection.commands(), operation, now, this.keyPrefix, counters, resolved, tokens);
    }

    /** The key of the counter in the server's window, if {@code key} names this one's. */
    private String serverWindow(String key) {
        Instant serverNow = (this.serverClock != null) ? this.serverClock.instant() : this.redis.serverInstant();
        return RedisQuotaScript.inServerWindow(key, this.timeSource.instant(), serverNow);
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
