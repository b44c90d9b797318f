package io.github.llmthrottle.store;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;
import io.github.llmthrottle.time.TimeSource;

/**
 * Buckets kept in this JVM ({@code llm.throttle.store=memory}), Bucket4j local buckets
 * whose time comes from the wall clock of the injected {@link TimeSource}, so tests drive
 * refill with a fake clock.
 */
public final class LocalBucketStore implements BucketStore {

    private final Map<String, Bucket4jTokenBucket> buckets = new ConcurrentHashMap<>();

    private final TimeMeter timeMeter;

    /**
     * Creates a store whose buckets refill by the wall clock of {@code timeSource}.
     * @param timeSource the time source
     */
    public LocalBucketStore(TimeSource timeSource) {
        this.timeMeter = new ClockTimeMeter(timeSource.clock());
    }

    @Override
    public TokenBucket bucket(String key, long limitPerMinute) {
        Bucket4jTokenBucket bucket = this.buckets.computeIfAbsent(key,
                (k) -> new Bucket4jTokenBucket(Bucket.builder()
                    .addLimit(Bucket4jTokenBucket.bandwidth(limitPerMinute))
                    .withCustomTimePrecision(this.timeMeter)
                    .build(), limitPerMinute));
        bucket.reconfigure(limitPerMinute);
        return bucket;
    }

    @Override
    public void forget(String key) {
        this.buckets.remove(key);
    }

    /** How many buckets this store holds. */
    public int size() {
        return this.buckets.size();
    }

    /** Bucket4j time read from a {@link Clock}, in nanoseconds since the epoch. */
    record ClockTimeMeter(Clock clock) implements TimeMeter {

        @Override
        public long currentTimeNanos() {
            Instant now = this.clock.instant();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        }

        @Override
        public boolean isWallClockBased() {
            return true;
        }

    }

}
