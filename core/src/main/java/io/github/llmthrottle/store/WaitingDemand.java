package io.github.llmthrottle.store;

import io.github.llmthrottle.Priority;

/**
 * The priority of one {@link SharedBucketStore#take} and the demand of higher priorities
 * waiting on this instance, which the store shares with the other instances: a take of a
 * lower priority on any instance leaves in the model's buckets what the higher
 * priorities' demand, reported by the other instances, needs.
 *
 * @param priority the priority the taking call has now (a call that has waited long
 * enough counts as a higher one, as in the local queue)
 * @param realtime what the calls of this instance waiting as {@code REALTIME}, the taker
 * aside, need of each of the model's buckets of the take, in its order
 * @param normal the same for {@code NORMAL}
 */
public record WaitingDemand(Priority priority, long[] realtime, long[] normal) {

    /**
     * Checks the demand.
     * @param priority the priority the taking call has now
     * @param realtime what the calls waiting as {@code REALTIME} need of each model
     * bucket
     * @param normal what the calls waiting as {@code NORMAL} need of each model bucket
     */
    public WaitingDemand {
        if (realtime.length != normal.length) {
            throw new IllegalArgumentException("realtime and normal demand must have one entry per model bucket, had "
                    + realtime.length + " and " + normal.length);
        }
    }

}
