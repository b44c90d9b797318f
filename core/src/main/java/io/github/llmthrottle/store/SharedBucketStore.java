package io.github.llmthrottle.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;

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
     * Takes as {@link #take(List, long[], int, Runnable)} does, for a call of the given
     * priority, and reports what calls of higher priorities wait on this instance: while
     * the model's buckets are short, a take of a lower priority succeeds only if they
     * still hold what the higher priorities reported by the other instances need. By
     * default priorities are not shared.
     * @param buckets handles of this store: the model's buckets first, then the tenant's
     * @param costs what the attempt needs of each
     * @param modelBuckets how many of {@code buckets} are the model's
     * @param waiting the taker's priority and the demand waiting on this instance
     * @param givenBack what to do once what a late or abandoned command took has been
     * given back
     * @return what was taken, or how long until it could be
     * @throws InterruptedException if the calling thread is interrupted
     * @throws BucketStoreUnavailableException if the store cannot answer and is
     * configured to refuse admissions
     */
    default Take take(List<TokenBucket> buckets, long[] costs, int modelBuckets, WaitingDemand waiting,
            Runnable givenBack) throws InterruptedException {
        return take(buckets, costs, modelBuckets, givenBack);
    }

    /**
     * Asks about a call of a model without any limit, which takes no bucket: whether a
     * pause of the model shared by the store ({@link #pause}) holds it. One round trip,
     * on the calling thread, within the store's timeout (as {@link #take}), so that once
     * the store holds another instance's pause no call of the model goes anywhere until
     * its end; the {@link ModelLimiter} calls it without its lock. By default from what
     * this instance knows ({@link #pausedNanos}), without waiting.
     * @param modelKey the key prefix of the model's buckets ({@link BucketKeys#model})
     * @return {@link Take#withoutBuckets()} when the call may go, else how long the pause
     * holds it
     * @throws InterruptedException if the calling thread is interrupted
     * @throws BucketStoreUnavailableException if the store cannot answer and is
     * configured to refuse admissions
     */
    default Take takeNone(String modelKey) throws InterruptedException {
        long paused = pausedNanos(modelKey);
        return (paused > 0) ? new Take(null, paused, 0, paused) : Take.withoutBuckets();
    }

    /**
     * Pauses a model on every instance that shares the store, after a 429 or a
     * retry-after: no {@link #take} of its buckets is granted before the store's time now
     * plus {@code wait} (a later pause in force stays), and the takes after it go one per
     * {@code spacing} across all instances until the calls that piled up have gone. Sends
     * it at once without waiting for the store; the answer says when no take of any
     * instance is granted any more, so that the instance told to wait can hold back its
     * caller (and the retry) until then. A store that cannot be reached drops it (each
     * instance still pauses itself). By default nothing is shared.
     * @param modelKey the key prefix of the model's buckets ({@link BucketKeys#model})
     * @param wait how long the provider asked to wait
     * @param spacing the time between two calls released after the pause
     * @return completes once the store holds the pause, or once it is known not to (a
     * failure, the store's timeout): never later than the timeout, never exceptionally
     */
    default CompletableFuture<Void> pause(String modelKey, Duration wait, Duration spacing) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * How long a pause of the model shared by the store holds as far as this instance
     * knows now, without waiting for the store (which reads it again in the background
     * when its last reading is old). By default nothing is shared.
     * @param modelKey the key prefix of the model's buckets ({@link BucketKeys#model})
     * @return nanoseconds, {@code 0} when no pause is known to hold
     */
    default long pausedNanos(String modelKey) {
        return 0;
    }

    /**
     * The pause of a model that the store shares, as last read from it: never waits for
     * the store, and reads it again in the background when that reading is old. For the
     * actuator, so that every instance shows the same pause and who asked for it. By
     * default nothing is shared.
     * @param modelKey the key prefix of the model's buckets ({@link BucketKeys#model})
     * @return the pause in force, or {@code null} when none is known to hold
     */
    default @Nullable SharedPause sharedPause(String modelKey) {
        return null;
    }

    /**
     * A model's pause as the store shares it.
     *
     * @param until when it ends, in the store's time
     * @param pausedBy the instance that paused the model (the latest, when several did)
     * @param pausedAt when that instance paused it, in the store's time
     */
    record SharedPause(Instant until, String pausedBy, Instant pausedAt) {
    }

    /**
     * The answer to one {@link SharedBucketStore#take}.
     *
     * @param settlement where to settle what was taken, {@code null} if nothing was
     * @param modelWaitNanos how long until the model's buckets would hold what they lack
     * ({@code 0} if they do, {@link Long#MAX_VALUE} if they never will)
     * @param tenantWaitNanos the same for the tenant's buckets
     * @param pauseNanos how long a pause of the model shared by the store still holds
     * ({@link #pause}; {@code 0} for none)
     */
    record Take(@Nullable Settlement settlement, long modelWaitNanos, long tenantWaitNanos, long pauseNanos) {

        private static final Settlement NOTHING_TAKEN = (amounts, givenBack) -> {
        };

        /**
         * An answer that says nothing of a shared pause.
         * @param settlement where to settle what was taken, {@code null} if nothing was
         * @param modelWaitNanos how long until the model's buckets would hold what they
         * lack
         * @param tenantWaitNanos the same for the tenant's buckets
         */
        public Take(@Nullable Settlement settlement, long modelWaitNanos, long tenantWaitNanos) {
            this(settlement, modelWaitNanos, tenantWaitNanos, 0);
        }

        /**
         * The answer that lets a call taking no bucket go ({@link #takeNone}): its
         * settlement settles nothing.
         * @return the answer
         */
        public static Take withoutBuckets() {
            return new Take(NOTHING_TAKEN, 0, 0);
        }

        /** Whether every bucket was taken. */
        public boolean taken() {
            return this.settlement != null;
        }

    }

}
