package io.github.llmthrottle.store;

/**
 * Where buckets live. {@link LocalBucketStore} keeps them in this JVM (Bucket4j buckets,
 * wrapped in {@link Bucket4jTokenBucket}); {@link RedisBucketStore} makes every instance
 * that shares a Redis server draw from the same buckets, taking all of an admission's
 * buckets in one round trip ({@link SharedBucketStore}).
 */
@FunctionalInterface
public interface BucketStore {

    /**
     * The bucket stored under {@code key}, created full if it does not exist yet, and
     * holding {@code limitPerMinute} as its limit.
     * @param key the bucket's key, for example
     * <code>{anthropic:claude-opus-4-7}:input-tokens</code> ({@link BucketKeys})
     * @param limitPerMinute its per-minute limit and capacity
     * @return a handle on the bucket
     */
    TokenBucket bucket(String key, long limitPerMinute);

    /**
     * Forgets the bucket of {@code key} in this instance (its name is no longer tracked);
     * a shared bucket's state stays where it lives until it expires.
     * @param key the bucket key
     */
    default void forget(String key) {
    }

}
