package io.github.llmthrottle.benchmarks.redis;

import java.util.List;

import io.github.llmthrottle.store.SharedBucketStore;
import io.github.llmthrottle.store.TokenBucket;

/**
 * A shared store whose buckets are shared but whose fleet-wide extras stay with this
 * instance, as before they were shared: a pause is not sent to the others, and a take
 * carries no priority (it keeps no reserve and reports no demand).
 *
 * @param store the store
 */
record Unshared(SharedBucketStore store) implements SharedBucketStore {

    @Override
    public TokenBucket bucket(String key, long limitPerMinute) {
        return this.store.bucket(key, limitPerMinute);
    }

    @Override
    public Take take(List<TokenBucket> buckets, long[] costs, int modelBuckets, Runnable givenBack)
            throws InterruptedException {
        return this.store.take(buckets, costs, modelBuckets, givenBack);
    }

    /** The integer value of the command-line option {@code name}, or the fallback. */
    static int intOption(String[] args, String name, int fallback) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return Integer.parseInt(args[i + 1]);
            }
        }
        return fallback;
    }

}
