package io.github.llmthrottle.limit;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.limit.AdmissionQueue.Blocker;
import io.github.llmthrottle.limit.AdmissionQueue.Waiter;
import io.github.llmthrottle.store.SharedBucketStore;
import io.github.llmthrottle.store.WaitingDemand;

/**
 * What a take from a {@link SharedBucketStore} tells the other instances about this
 * instance's queue ({@link WaitingDemand}): the priority the taker has now, and what the
 * calls waiting behind it as {@code REALTIME} and {@code NORMAL} need of each of the
 * model's buckets. A call that has waited counts as the priority whose call arriving now
 * it is ranked ahead of in the local queue, so a {@code BATCH} call that has waited two
 * {@link AdmissionQueue#PRIORITY_STEP steps} counts as {@code REALTIME} across the fleet
 * too, and never starves. A call held back only by its own tenant's buckets reserves
 * nothing of the model's.
 */
final class FleetPriority {

    private static final Priority[] PRIORITIES = Priority.values();

    private FleetPriority() {
    }

    /**
     * The priority a waiting call has now: the highest whose call arriving now it is
     * ranked ahead of.
     */
    static Priority effective(Waiter waiter, long now) {
        long ahead = waiter.rank - now;
        if (ahead <= 0) {
            return Priority.REALTIME;
        }
        long step = AdmissionQueue.PRIORITY_STEP.toNanos();
        long steps = ahead / step + ((ahead % step != 0) ? 1 : 0);
        return PRIORITIES[(int) Math.min(steps, PRIORITIES.length - 1)];
    }

    /**
     * The report of a take by {@code taker}: its priority now, and what the other calls
     * in {@code queue} waiting as {@code REALTIME} and {@code NORMAL} need of each of the
     * model's buckets ({@code dimensions}, the first {@code modelBuckets} of them).
     */
    static WaitingDemand demand(Iterable<Waiter> queue, Waiter taker, Dimension[] dimensions, int modelBuckets,
            long now) {
        long[] realtime = new long[modelBuckets];
        long[] normal = new long[modelBuckets];
        for (Waiter waiter : queue) {
            if (waiter == taker || waiter.blockedBy == Blocker.TENANT) {
                continue;
            }
            Priority priority = effective(waiter, now);
            if (priority == Priority.BATCH) {
                continue;
            }
            long[] demand = (priority == Priority.REALTIME) ? realtime : normal;
            AdmissionRequest request = waiter.request;
            for (int i = 0; i < modelBuckets; i++) {
                demand[i] += dimensions[i].cost(request.inputTokens(), request.outputTokens());
            }
        }
        return new WaitingDemand(effective(taker, now), realtime, normal);
    }

}
