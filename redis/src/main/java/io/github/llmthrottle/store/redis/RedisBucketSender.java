package io.github.llmthrottle.store.redis;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.store.Settlement;
import io.github.llmthrottle.store.redis.RedisBucketScript.Operation;
import io.github.llmthrottle.store.redis.RedisConnector.Connection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link RedisBucketStore} sends without waiting for it, in order, from a thread
 * of its own (never an application thread, so neither a caller's lock nor its interrupt
 * touches it): the settlements of reservations taken from Redis, what a late or abandoned
 * take took, and the changes through the handles.
 */
final class RedisBucketSender {

    private static final Log logger = LogFactory.getLog(RedisBucketSender.class);

    private final RedisBucketStore store;

    private final ExecutorService sender;

    RedisBucketSender(RedisBucketStore store) {
        this.store = store;
        this.sender = Executors.newSingleThreadExecutor((runnable) -> {
            Thread thread = new Thread(runnable, "llm-throttle-redis-send");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Sends a command nobody waits for, on {@code connection} if it is still open;
     * {@code applied} runs with its answer.
     */
    void send(Connection connection, Operation operation, RedisBucket[] buckets, long[] amounts,
            @Nullable Runnable applied) {
        execute(() -> {
            if (!connection.connection().isOpen()) {
                logger.debug("Redis connection lost: a change of the shared buckets was dropped");
                return;
            }
            long now = this.store.nowMicros();
            RedisBucketScript
                .run(connection.commands(), operation, this.store.serverNow(), buckets.length, buckets, amounts, null,
                        null)
                .orTimeout(this.store.timeout().toNanos(), TimeUnit.NANOSECONDS)
                .whenComplete((reply, failure) -> {
                    if (failure != null) {
                        this.store.connector().commandFailed(connection, failure);
                        return;
                    }
                    this.store.connector().answered();
                    observe(buckets, reply, now);
                    if (applied != null) {
                        execute(applied);
                    }
                });
        });
    }

    /** The settlement of a reservation taken from Redis: to the same connection. */
    Settlement settlement(Connection connection, RedisBucket[] buckets) {
        return (amounts, givenBack) -> {
            boolean givesBack = false;
            for (long amount : amounts) {
                givesBack |= amount < 0;
            }
            send(connection, Operation.ADJUST, buckets, amounts, givesBack ? givenBack : null);
        };
    }

    /** Gives back what a late or abandoned take took, if it took any bucket. */
    void giveBackIfTaken(BucketReply reply, Connection connection, RedisBucket[] buckets, long[] costs,
            Runnable givenBack) {
        if (reply.taken() && buckets.length > 0) {
            long[] giveBack = new long[costs.length];
            for (int i = 0; i < costs.length; i++) {
                giveBack[i] = -costs[i];
            }
            send(connection, Operation.ADJUST, buckets, giveBack, givenBack);
        }
    }

    /** Records in each handle what the answer says its bucket holds. */
    static void observe(RedisBucket[] buckets, BucketReply reply, long atMicros) {
        for (int i = 0; i < buckets.length; i++) {
            buckets[i].observe(reply.levels()[i], atMicros, reply.caps()[i]);
        }
    }

    /** Sends nothing more. */
    void shutdown() {
        this.sender.shutdown();
    }

    private void execute(Runnable task) {
        try {
            this.sender.execute(task);
        }
        catch (RejectedExecutionException ex) {
            // closed
        }
    }

}
