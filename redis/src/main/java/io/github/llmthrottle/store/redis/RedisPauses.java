package io.github.llmthrottle.store.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.store.SharedBucketStore.SharedPause;
import io.github.llmthrottle.store.redis.RedisConnector.Connection;
import io.github.llmthrottle.time.Nanos;
import io.github.llmthrottle.time.TimeSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The pauses after a 429 that a {@link RedisBucketStore} shares: it sends them
 * ({@link #pause}), remembers what it learned of each (from its own pauses, the answers
 * of takes and the readings of {@link #sharedPause}), and reads them for the actuator in
 * the background.
 *
 * <p>
 * What it remembers also holds a call served from local buckets when Redis does not
 * answer in time: a pause this instance knows of stays in force without Redis, so that a
 * slow command during another instance's pause sends no call to the provider.
 */
final class RedisPauses {

    private static final Log logger = LogFactory.getLog(RedisPauses.class);

    /**
     * Answers {@code 1}, the rest of the pause (microseconds), who paused it and when
     * (server microseconds), or {@code 0} when no pause holds.
     */
    private static final String READ = """
            local now = tonumber(ARGV[1])
            if now == nil then
              local time = redis.call('TIME')
              now = tonumber(time[1]) * 1000000 + tonumber(time[2])
            end
            local s = redis.call('HMGET', KEYS[1], 'until', 'by', 'at')
            local u = tonumber(s[1])
            if u == nil or u <= now then
              return {0}
            end
            return {1, u - now, s[2] or '', tonumber(s[3]) or 0, u}
            """;

    private static final String READ_DIGEST = RedisBucketScript.sha1(READ);

    /** How old a reading may be before a read asks Redis again. */
    private static final long REFRESH_AFTER_NANOS = Duration.ofSeconds(1).toNanos();

    /** Most models whose pause is remembered; beyond, nothing more is read. */
    static final int MAX_KNOWN = 10_000;

    private final RedisBucketStore store;

    private final String instanceId;

    /** What is known of each model's pause, by its pause key. */
    private final Map<String, Known> known = new ConcurrentHashMap<>();

    /** Pause keys being read in the background. */
    private final Set<String> reading = ConcurrentHashMap.newKeySet();

    RedisPauses(RedisBucketStore store, @Nullable String instanceId) {
        this.store = store;
        this.instanceId = (instanceId != null && !instanceId.isBlank()) ? instanceId : defaultInstanceId();
    }

    /**
     * This instance's id as the others see it: the process id and the host name.
     * @return {@code pid@host}
     */
    static String defaultInstanceId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        }
        catch (IOException ex) {
            host = "unknown-host";
        }
        return ProcessHandle.current().pid() + "@" + host;
    }

    /**
     * The key of a model's shared pause, in the slot of its buckets.
     * @param modelKey the key prefix of the model's buckets ({@code BucketKeys#model})
     */
    String keyOf(String modelKey) {
        return this.store.keyPrefix() + ":" + modelKey + ":pause";
    }

    /**
     * The key of the shared pause of the model a bucket key belongs to: the hash tag the
     * key starts with ({@code BucketKeys}), {@code null} for a key without one.
     */
    @Nullable String keyOfBucket(String bucketKey) {
        return modelKeyOfBucket(bucketKey, ":pause");
    }

    /**
     * A key of the model a bucket key belongs to (its shared pause, its demand per
     * priority), in the slot of its buckets: the hash tag the key starts with
     * ({@code BucketKeys}) and the suffix, {@code null} for a key without one.
     */
    @Nullable String modelKeyOfBucket(String bucketKey, String suffix) {
        int end = bucketKey.indexOf('}');
        return (bucketKey.startsWith("{") && end > 0)
                ? this.store.keyPrefix() + ":" + bucketKey.substring(0, end + 1) + suffix : null;
    }

    /** Who pauses a model, as the other instances see it. */
    String instanceId() {
        return this.instanceId;
    }

    /**
     * Sends a pause at once from the caller's thread (Lettuce only queues it), ahead of
     * the store's own queue of settlements: every take the pause misses is a call sent.
     * @return completes once Redis holds the pause, or failed to (within the timeout)
     */
    CompletableFuture<Void> pause(String pauseKey, long waitMicros, long spacingMicros) {
        TimeSource time = this.store.timeSource();
        long sent = time.nanoTime();
        learned(pauseKey, sent, waitMicros * 1000);
        Connection connection = this.store.connector().current();
        if (connection == null) {
            return CompletableFuture.completedFuture(null);
        }
        return RedisBucketScript
            .pause(connection.commands(), this.store.serverNow(), pauseKey, waitMicros, spacingMicros, this.instanceId)
            .orTimeout(this.store.timeout().toNanos(), TimeUnit.NANOSECONDS)
            .handle((reply, failure) -> {
                if (failure != null) {
                    logger.debug("A pause could not be shared through Redis", failure);
                    return null;
                }
                // the pause may hold longer (another instance's): read it again
                learned(pauseKey, sent, reply.pauseWaitMicros() * 1000);
                this.known.computeIfPresent(pauseKey, (key, known) -> known.withReadAt(Long.MIN_VALUE));
                return null;
            });
    }

    /**
     * How long the model's pause still holds as far as this instance knows, reading it
     * again in the background when the last reading is old ({@link #sharedPause}).
     * @param modelKey the key prefix of the model's buckets
     * @return nanoseconds, {@code 0} when no pause is known to hold
     */
    long pausedNanos(String modelKey) {
        String pauseKey = keyOf(modelKey);
        sharedPause(pauseKey);
        return heldNanos(pauseKey);
    }

    /**
     * Records that the model's pause holds for {@code nanos} from {@code at} (this
     * instance's monotonic clock); a shorter pause than one known changes nothing.
     */
    void learned(String pauseKey, long at, long nanos) {
        if (nanos <= 0 || (this.known.size() >= MAX_KNOWN && !this.known.containsKey(pauseKey))) {
            return;
        }
        long until = Nanos.saturatedAdd(at, nanos);
        this.known.merge(pauseKey, new Known(until, null, Long.MIN_VALUE),
                (old, added) -> (added.until > old.until) ? new Known(until, old.pause, old.readAt) : old);
    }

    /**
     * How long the model's pause still holds as far as this instance knows.
     * @return nanoseconds, {@code 0} when no pause is known to hold
     */
    long heldNanos(String pauseKey) {
        Known known = this.known.get(pauseKey);
        return (known != null) ? Math.max(0, Nanos.saturatedSubtract(known.until, this.store.timeSource().nanoTime()))
                : 0;
    }

    /**
     * The model's pause as last read from Redis, if it still holds; reads it again in the
     * background when that reading is older than a second.
     */
    @Nullable SharedPause sharedPause(String pauseKey) {
        long now = this.store.timeSource().nanoTime();
        Known known = this.known.get(pauseKey);
        if (known == null || Nanos.saturatedSubtract(now, known.readAt) > REFRESH_AFTER_NANOS) {
            read(pauseKey);
        }
        if (known == null || known.pause == null || now >= known.until) {
            return null;
        }
        return known.pause;
    }

    private void read(String pauseKey) {
        if ((this.known.size() >= MAX_KNOWN && !this.known.containsKey(pauseKey)) || !this.reading.add(pauseKey)) {
            return;
        }
        Connection connection = this.store.connector().current();
        if (connection == null) {
            this.reading.remove(pauseKey);
            return;
        }
        Long serverNow = this.store.serverNow();
        long sent = this.store.timeSource().nanoTime();
        RedisBucketScript
            .eval(connection.commands(), READ_DIGEST, READ, new String[] { pauseKey },
                    new String[] { (serverNow != null) ? Long.toString(serverNow) : "" })
            .orTimeout(this.store.timeout().toNanos(), TimeUnit.NANOSECONDS)
            .whenComplete((reply, failure) -> {
                this.reading.remove(pauseKey);
                if (failure != null) {
                    logger.debug("Could not read a pause from Redis", failure);
                    return;
                }
                read(pauseKey, reply, sent);
            });
    }

    private void read(String pauseKey, List<Object> reply, long sent) {
        if ((Long) reply.get(0) == 0) {
            // no pause in Redis: what this instance knows of its own may still hold
            this.known.compute(pauseKey, (key, old) -> (old != null && old.until > sent)
                    ? new Known(old.until, null, sent) : new Known(Long.MIN_VALUE, null, sent));
            return;
        }
        long restNanos = (Long) reply.get(1) * 1000;
        SharedPause pause = new SharedPause(instant((Long) reply.get(4)), (String) reply.get(2),
                instant((Long) reply.get(3)));
        long until = Nanos.saturatedAdd(sent, restNanos);
        this.known.compute(pauseKey,
                (key, old) -> new Known((old != null) ? Math.max(old.until, until) : until, pause, sent));
    }

    private static Instant instant(long micros) {
        return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
    }

    /**
     * What is known of one model's pause.
     *
     * @param until when it ends, in nanoseconds of this instance's monotonic clock
     * ({@link Long#MIN_VALUE} for no pause)
     * @param pause the pause as last read from Redis, {@code null} if none was
     * @param readAt when Redis was last read, {@link Long#MIN_VALUE} for never
     */
    private record Known(long until, @Nullable SharedPause pause, long readAt) {

        Known withReadAt(long readAt) {
            return new Known(this.until, this.pause, readAt);
        }

    }

}
