package io.github.llmthrottle.store.redis;

import java.util.List;

/**
 * The answer of the bucket script ({@link RedisBucketScript}).
 *
 * @param taken whether the amounts were taken
 * @param modelWaitMicros until the model's buckets hold what they lack, {@code -1} never
 * @param tenantWaitMicros the same for the tenant's
 * @param pauseWaitMicros how long the model's pause across the fleet holds, {@code 0} if
 * none does
 * @param levels what each bucket holds now, rounded down
 * @param caps the provider's burst each bucket is held at, {@code 0} for none
 */
record BucketReply(boolean taken, long modelWaitMicros, long tenantWaitMicros, long pauseWaitMicros, long[] levels,
        long[] caps) {

    static BucketReply of(List<Object> reply, int buckets) {
        if (reply.size() != 4 + 2 * buckets) {
            throw new IllegalStateException("Unexpected answer of the bucket script: " + reply);
        }
        long[] levels = new long[buckets];
        long[] caps = new long[buckets];
        for (int i = 0; i < buckets; i++) {
            levels[i] = (Long) reply.get(4 + i);
            caps[i] = (Long) reply.get(4 + buckets + i);
        }
        return new BucketReply((Long) reply.get(0) == 1, (Long) reply.get(1), (Long) reply.get(2), (Long) reply.get(3),
                levels, caps);
    }

}
