package io.github.llmthrottle.store;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A {@link BucketStore} whose buckets live outside this JVM ({@link RedisBucketStore}).
 * An admission takes every bucket it needs, its model's and its tenant's, in one atomic
 * round trip through {@link #take}, which the {@link ModelLimiter} calls without holding
 * its lock; the store's {@link TokenBucket} handles never wait for it (see
 * {@link TokenBucket}).
 */
public interface SharedBucketStore extends BucketStore {

    /**
     * Takes {@code costs[i]} from {@code buckets.get(i)} for every {@code i}, or nothing:
     * one round trip, on the calling thread, within the store's timeout.
     * @param buckets handles of this store: the model's buckets first, then the tenant's
     * @param costs what the attempt needs of each
     * @param modelBuckets how many of {@code buckets} are the model's
     * @param givenBack what to do once what a late or abandoned command took has been
     * given back (so that waiting calls look again)
     * @return what was taken, or how long until it could be
     * @throws InterruptedException if the calling thread is interrupted; what the command
     * took once it answers is given back
     * @throws BucketStoreUnavailableException if the store cannot answer and is
     * configured to refuse admissions rather than fall back to local buckets
     */
    Take take(List<TokenBucket> buckets, long[] costs, int modelBuckets, Runnable givenBack)
            throws InterruptedException;

    /**
     * The answer to one {@link SharedBucketStore#take}.
     *
     * @param settlement where to settle what was taken, {@code null} if nothing was
     * @param modelWaitNanos how long until the model's buckets would hold what they lack
     * ({@code 0} if they do, {@link Long#MAX_VALUE} if they never will)
     * @param tenantWaitNanos the same for the tenant's buckets
     */
    record Take(@Nullable Settlement settlement, long modelWaitNanos, long tenantWaitNanos) {

        /** Whether every bucket was taken. */
        public boolean taken() {
            return this.settlement != null;
        }

    }

}
