package io.github.llmthrottle.limit;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;

/**
 * Buckets kept in this JVM ({@code llm.throttle.store=memory}), Bucket4j local buckets whose time
 * comes from the injected {@link Clock}, so tests drive refill with a fake clock.
 */
public final class LocalBucketStore implements BucketStore {

    private final Map<String, Bucket4jTokenBucket> buckets = new ConcurrentHashMap<>();

    private final TimeMeter timeMeter;

    /**
     * Creates a store whose buckets refill by {@code clock}.
     * @param clock the time source
     */
    public LocalBucketStore(Clock clock) {
        this.timeMeter = new ClockTimeMeter(clock);
    }

    @Override
    public TokenBucket bucket(String key, long limitPerMinute) {
        Bucket4jTokenBucket bucket = this.buckets.computeIfAbsent(key, (k) -> new Bucket4jTokenBucket(
                Bucket.builder().addLimit(Bucket4jTokenBucket.bandwidth(limitPerMinute))
                    .withCustomTimePrecision(this.timeMeter)
                    .build(),
                limitPerMinute));
        bucket.reconfigure(limitPerMinute);
        return bucket;
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
