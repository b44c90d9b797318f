package io.github.llmthrottle.store.redis;

import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.store.Settlement;
import io.github.llmthrottle.store.SharedBucketStore.Take;
import io.github.llmthrottle.store.TokenBucket;
import io.github.llmthrottle.store.redis.RedisBucketScript.Operation;
import io.github.llmthrottle.time.TimeSource;

/**
 * The local buckets that stand in for the buckets of a {@link RedisBucketStore} while
 * Redis does not answer ({@link RedisBucketStore.OnFailure#LOCAL}): one of the same key
 * for each shared bucket, capped as the shared one is, so that every instance admits up
 * to the whole limit on its own. What a local bucket holds is handed to its shared
 * bucket's handle after each change, which reads it until Redis answers again.
 */
final class LocalFallback {

    private final LocalBucketStore local;

    LocalFallback(TimeSource timeSource) {
        this.local = new LocalBucketStore(timeSource);
    }

    /**
     * A take served by the local buckets of the same keys, all or nothing.
     * @param buckets the shared buckets, the model's first
     * @param costs what to take from each
     * @param modelBuckets how many of the buckets are the model's
     * @return the take, with a settlement to the same local buckets when it took
     */
    Take take(RedisBucket[] buckets, long[] costs, int modelBuckets) {
        TokenBucket[] local = new TokenBucket[buckets.length];
        long modelWait = 0;
        long tenantWait = 0;
        for (int i = 0; i < buckets.length; i++) {
            local[i] = local(buckets[i]);
            long wait = local[i].nanosToWaitFor(costs[i]);
            if (i < modelBuckets) {
                modelWait = Math.max(modelWait, wait);
            }
            else {
                tenantWait = Math.max(tenantWait, wait);
            }
        }
        Take take;
        if (modelWait > 0 || tenantWait > 0) {
            take = new Take(null, modelWait, tenantWait);
        }
        else {
            int taken = 0;
            while (taken < local.length && local[taken].tryConsume(costs[taken])) {
                taken++;
            }
            if (taken == local.length) {
                take = new Take(new LocalSettlement(buckets, local), 0, 0);
            }
            else {
                // A settlement of the same buckets came in between: give back, look
                // again.
                for (int i = 0; i < taken; i++) {
                    local[i].refund(costs[i]);
                }
                take = new Take(null, 0, 0);
            }
        }
        for (int i = 0; i < buckets.length; i++) {
            buckets[i].observeLocal(local[i]);
        }
        return take;
    }

    /**
     * Applies one change of a bucket to its local bucket.
     * @param bucket the shared bucket
     * @param operation what to do
     * @param amount the tokens to take or give back, or the limit to cap at
     */
    void change(RedisBucket bucket, Operation operation, long amount) {
        TokenBucket local = local(bucket);
        switch (operation) {
            case ADJUST -> {
                if (amount > 0) {
                    local.forceConsume(amount);
                }
                else {
                    local.refund(-amount);
                }
            }
            case CAP -> local.limitTo(amount);
            case TAKE -> local.tryConsume(amount);
        }
        bucket.observeLocal(local);
    }

    /**
     * The local bucket that stands in for {@code bucket} while Redis does not answer,
     * capped as the shared one is.
     */
    private TokenBucket local(RedisBucket bucket) {
        TokenBucket local = this.local.bucket(bucket.key, bucket.capacity());
        local.limitBurst(bucket.burstCapacity());
        return local;
    }

    /**
     * The settlement of a reservation served by local buckets while Redis did not answer:
     * to the same local buckets, even once Redis answers again.
     */
    private static final class LocalSettlement implements Settlement {

        private final RedisBucket[] buckets;

        private final TokenBucket[] local;

        LocalSettlement(RedisBucket[] buckets, TokenBucket[] local) {
            this.buckets = buckets;
            this.local = local;
        }

        @Override
        public void adjust(long[] amounts, Runnable givenBack) {
            boolean gaveBack = false;
            for (int i = 0; i < amounts.length; i++) {
                if (amounts[i] < 0) {
                    this.local[i].refund(-amounts[i]);
                    gaveBack = true;
                }
                else if (amounts[i] > 0) {
                    this.local[i].forceConsume(amounts[i]);
                }
                this.buckets[i].observeLocal(this.local[i]);
            }
            if (gaveBack) {
                givenBack.run();
            }
        }

    }

}
