package io.github.llmthrottle.store.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.github.llmthrottle.time.Nanos;
import io.github.llmthrottle.time.TimeSource;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.StringCodec;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The connection of one {@link RedisBucketStore} to Redis, and whether to use it now: the
 * Lettuce side of the store, apart from what the store does without Redis.
 *
 * <p>
 * It opens a connection of its own through the given client ({@link RedisClient} or
 * {@link RedisClusterClient}), on a background thread, and loads the store's
 * {@link RedisBucketScript} there: the constructor waits for it for at most the client's
 * connect timeout, later attempts (after a failed one) for at most the command timeout.
 * When Redis cannot be reached (no connection yet, connection lost, or
 * {@value #FAILURES_BEFORE_OUTAGE} commands in a row failing or answering later than the
 * timeout) {@link #available()} says to do without it for {@code retryInterval}, then
 * tries again; one slow or failed command alone fails only its own call. Lettuce
 * reconnects a lost connection in the background, and while it is not connected nobody
 * waits for it. One warning is logged per outage, and one message when Redis answers
 * again (under the store's logger). The back-off runs on the monotonic clock of the
 * {@link TimeSource}.
 *
 * <p>
 * On a {@link RedisClusterClient}, a failure also has the client read the cluster's
 * topology again (at most once per {@value #REFRESH_INTERVAL_MILLIS} ms): after a master
 * fails over to its replica, commands go to the new master without waiting for a periodic
 * or adaptive refresh, which Boot leaves off by default.
 *
 * <p>
 * It also knows the Redis server's time, as well as an instance can between commands: the
 * offset from this instance's wall clock, read with {@code TIME} on each connection and
 * from every answer that says the server's time ({@link #serverTime(long)}), for what the
 * instances must order by one clock ({@link #serverInstant()}).
 */
final class RedisConnector implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(RedisBucketStore.class);

    /** Commands failing in a row that make an outage; fewer fail only their own calls. */
    static final int FAILURES_BEFORE_OUTAGE = 3;

    /** Least time between two reads of a cluster's topology after failures. */
    static final long REFRESH_INTERVAL_MILLIS = 1000;

    private static final String TIME = "return redis.call('TIME')";

    private final AbstractRedisClient client;

    private final Duration timeout;

    private final Duration retryInterval;

    private final String withoutRedis;

    private final TimeSource timeSource;

    private final ExecutorService connector;

    private final AtomicReference<@Nullable CompletableFuture<Connection>> connecting = new AtomicReference<>();

    private final AtomicBoolean outage = new AtomicBoolean();

    private final AtomicInteger failuresInARow = new AtomicInteger();

    private volatile @Nullable Connection connection;

    private volatile long downUntil = Long.MIN_VALUE;

    private volatile boolean closed;

    /** The Redis server's wall clock minus this instance's, in millis. */
    private volatile long serverOffsetMillis;

    /** When the cluster's topology may be read again, on the monotonic clock. */
    private final AtomicLong nextRefresh = new AtomicLong(Long.MIN_VALUE);

    /**
     * Starts connecting, and waits for the connection for at most the client's connect
     * timeout.
     * @param client the client to open the connection with; it stays the caller's
     * @param timeout longest wait for one Redis command, and for the connection
     * @param retryInterval how long to do without Redis after a failure before trying it
     * again
     * @param withoutRedis what the store does without Redis, for the outage warning
     * @param timeSource time of the buckets (its wall clock) and of the back-off (its
     * monotonic clock)
     */
    RedisConnector(AbstractRedisClient client, Duration timeout, Duration retryInterval, String withoutRedis,
            TimeSource timeSource) {
        this.client = client;
        this.timeout = timeout;
        this.retryInterval = retryInterval;
        this.withoutRedis = withoutRedis;
        this.timeSource = timeSource;
        this.connector = Executors.newSingleThreadExecutor((runnable) -> {
            Thread thread = new Thread(runnable, "llm-throttle-redis-connect");
            thread.setDaemon(true);
            return thread;
        });
        // Wait for the connection here (at startup) rather than send the first calls to
        // local buckets while it opens; the client's connect timeout bounds the wait.
        awaitConnection(client.getOptions().getSocketOptions().getConnectTimeout());
    }

    /**
     * The connection to use now.
     * @return the connection, or {@code null} to do without Redis
     */
    @Nullable Connection available() {
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
            failed(null);
            return null;
        }
        return current;
    }

    /**
     * The connection to use now if there is one, without waiting for one: for commands
     * nobody waits for.
     * @return the connection, or {@code null} to do without Redis
     */
    @Nullable Connection current() {
        if (this.closed || now() < this.downUntil) {
            return null;
        }
        Connection current = this.connection;
        if (current == null) {
            // connect in the background for the next caller who waits
            connectAttempt();
            return null;
        }
        return current.connection().isOpen() ? current : null;
    }

    /**
     * Records that one command on {@code used} failed or answered too late: an outage if
     * the connection is lost or {@value #FAILURES_BEFORE_OUTAGE} commands failed in a
     * row, otherwise only the command's own call is concerned.
     * @param used the connection the command was sent on
     * @param cause what went wrong
     */
    void commandFailed(Connection used, Throwable cause) {
        refreshTopology();
        if (!used.connection().isOpen() || this.failuresInARow.incrementAndGet() >= FAILURES_BEFORE_OUTAGE) {
            failed(cause);
        }
        else if (logger.isDebugEnabled()) {
            logger.debug("Redis bucket store command failed", cause);
        }
    }

    /**
     * Waits for the answer to a caller's command on {@code used}, for at most the
     * timeout, and records how it went. A command that fails or answers too late fails
     * only its own call (unless it makes an outage): the answer is then {@code null}, and
     * {@code whenLate} runs with the reply if it comes after all, to give back what the
     * command took.
     * @param <T> the reply's type
     * @param used the connection the command was sent on
     * @param command the command
     * @param whenLate what to do with a reply nobody waits for any more
     * @return the reply, or why there is none
     * @throws InterruptedException if the caller is interrupted; {@code whenLate} runs
     * with the reply once it comes, and Redis is not blamed
     */
    <T> Answer<T> await(Connection used, CompletableFuture<T> command, Consumer<T> whenLate)
            throws InterruptedException {
        try {
            T reply = command.get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
            answered();
            return new Answer<>(reply, null);
        }
        catch (TimeoutException ex) {
            command.thenAccept(whenLate);
            commandFailed(used, ex);
            return new Answer<>(null, ex);
        }
        catch (ExecutionException ex) {
            commandFailed(used, ex.getCause());
            return new Answer<>(null, ex.getCause());
        }
        catch (InterruptedException ex) {
            command.thenAccept(whenLate);
            throw ex;
        }
    }

    /**
     * Records that Redis did not answer: do without it for {@code retryInterval}.
     * @param cause what went wrong, if known
     */
    void failed(@Nullable Throwable cause) {
        refreshTopology();
        this.downUntil = Nanos.saturatedAdd(now(), this.retryInterval.toNanos());
        if (this.outage.compareAndSet(false, true)) {
            String message = "Redis bucket store unavailable" + ((cause != null) ? " (" + cause + ")" : "") + "; "
                    + this.withoutRedis + " until it answers again, trying again every " + this.retryInterval;
            logger.warn(message, cause);
        }
        else if (logger.isDebugEnabled()) {
            logger.debug("Redis bucket store still unavailable", cause);
        }
    }

    /** Records that Redis answered, ending an outage. */
    void answered() {
        this.failuresInARow.set(0);
        if (this.outage.get() && this.outage.compareAndSet(true, false)) {
            logger.info("Redis bucket store answers again; buckets are shared again");
        }
    }

    /**
     * Records the Redis server's time an answer said.
     * @param serverMillis the server's time, epoch millis
     */
    void serverTime(long serverMillis) {
        this.serverOffsetMillis = serverMillis - this.timeSource.instant().toEpochMilli();
    }

    /**
     * The Redis server's time now, as far as this instance knows it: its own wall clock
     * set by the offset last seen (its own time until one is).
     * @return the server's time
     */
    Instant serverInstant() {
        return this.timeSource.instant().plusMillis(this.serverOffsetMillis);
    }

    /** Whether an outage is going on (until Redis answers again). */
    boolean isDown() {
        return this.outage.get();
    }

    /** How long until Redis is tried again, {@code null} if it may be tried now. */
    @Nullable Duration untilRetry() {
        long wait = Nanos.saturatedSubtract(this.downUntil, now());
        return (wait > 0) ? Duration.ofNanos(wait) : null;
    }

    /** Closes the connection; the client stays open. */
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
        StatefulConnection<String, String> opened;
        RedisScriptingAsyncCommands<String, String> commands;
        if (this.client instanceof RedisClusterClient cluster) {
            StatefulRedisClusterConnection<String, String> clusterConnection = cluster.connect(StringCodec.UTF8);
            opened = clusterConnection;
            commands = clusterConnection.async();
        }
        else {
            StatefulRedisConnection<String, String> redisConnection = ((RedisClient) this.client)
                .connect(StringCodec.UTF8);
            opened = redisConnection;
            commands = redisConnection.async();
        }
        if (this.closed) {
            opened.close();
            throw new IllegalStateException("RedisBucketStore is closed");
        }
        try {
            // Load the script once so that every admission sends only its digest; a
            // server that forgets it is sent the script again (RedisBucketScript.run).
            commands.scriptLoad(RedisBucketScript.SOURCE).get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
            long sent = this.timeSource.nanoTime();
            List<Object> time = commands.<List<Object>>eval(TIME, ScriptOutputType.MULTI)
                .get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
            long halfRoundTripMicros = (this.timeSource.nanoTime() - sent) / 2000;
            serverTime((Long.parseLong(time.get(0).toString()) * 1_000_000 + Long.parseLong(time.get(1).toString())
                    - halfRoundTripMicros) / 1000);
        }
        catch (ExecutionException | TimeoutException ex) {
            logger.debug("Could not load the bucket script or read the server's time; the script is sent with "
                    + "the first command, the time read from the first answer that says it", ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return new Connection(opened, commands);
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
            failed(ex);
        }
        catch (ExecutionException ex) {
            this.connecting.compareAndSet(attempt, null);
            failed(ex.getCause());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return null;
    }

    /** Has a cluster client read the topology again, if it did not lately. */
    private void refreshTopology() {
        if (this.client instanceof RedisClusterClient cluster) {
            long now = now();
            long next = this.nextRefresh.get();
            if (now - next >= 0 || next == Long.MIN_VALUE) {
                if (this.nextRefresh.compareAndSet(next,
                        now + TimeUnit.MILLISECONDS.toNanos(REFRESH_INTERVAL_MILLIS))) {
                    cluster.refreshPartitionsAsync().whenComplete((done, failure) -> {
                        if (failure != null) {
                            logger.debug("Could not read the Redis cluster's topology", failure);
                        }
                    });
                }
            }
        }
    }

    private long now() {
        return this.timeSource.nanoTime();
    }

    /**
     * The answer to one command a caller waited for.
     *
     * @param <T> the reply's type
     * @param reply the reply, {@code null} if the command failed or answered too late
     * @param failure why there is no reply
     */
    record Answer<T>(@Nullable T reply, @Nullable Throwable failure) {
    }

    /** The store's connection and its asynchronous commands. */
    record Connection(StatefulConnection<String, String> connection,
            RedisScriptingAsyncCommands<String, String> commands) {
    }

}
