package io.github.llmthrottle.limit;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What one admitted attempt took from the buckets of its model and of its tenant. An
 * attempt takes one request, its estimated input tokens and its {@code max_tokens} of
 * output tokens from every bucket at once, or nothing. {@link #settle(long, long)}
 * refunds what it did not use and debits what it used above the estimate, letting the
 * bucket go negative (the provider counted those tokens too, so the next calls must wait
 * for them); {@link #cancel()} gives everything back for an attempt that never went out.
 *
 * <p>
 * Not thread-safe: the owning {@link ModelLimiter} guards it with its lock.
 */
final class Reservation {

    private final List<BucketSet.Charge> charges;

    private long inputTokens;

    private long outputTokens;

    private Reservation(List<BucketSet.Charge> charges, long inputTokens, long outputTokens) {
        this.charges = charges;
        this.inputTokens = inputTokens;
        this.outputTokens = outputTokens;
    }

    /**
     * Takes what an attempt needs from every bucket of the model and of its tenant, or
     * from none.
     * @param model the model's buckets
     * @param tenant the tenant's buckets, {@code null} without a tenant
     * @param inputTokens the estimated input tokens
     * @param outputTokens the reserved output tokens
     * @return the reservation, or {@code null} if a bucket did not hold enough (a shared
     * store changed since it was asked) and nothing was taken
     * @throws BucketStoreUnavailableException if a shared store is down and configured to
     * reject
     */
    static @Nullable Reservation take(BucketSet model, @Nullable BucketSet tenant, long inputTokens,
            long outputTokens) {
        List<BucketSet.Charge> charges = new ArrayList<>();
        if (!model.tryConsume(inputTokens, outputTokens, charges)) {
            return null;
        }
        if (tenant != null) {
            boolean consumed = false;
            try {
                consumed = tenant.tryConsume(inputTokens, outputTokens, charges);
            }
            finally {
                if (!consumed) {
                    BucketSet.rollback(charges, 0, inputTokens, outputTokens);
                }
            }
            if (!consumed) {
                return null;
            }
        }
        return new Reservation(charges, inputTokens, outputTokens);
    }

    /**
     * Corrects the reservation to what the attempt used, from the previous settlement (or
     * the estimate): refunds what it did not use, debits what it used above, overdrawing
     * if need be.
     */
    void settle(long inputTokens, long outputTokens) {
        for (BucketSet.Charge charge : this.charges) {
            long delta = charge.dimension().cost(inputTokens, outputTokens)
                    - charge.dimension().cost(this.inputTokens, this.outputTokens);
            if (delta < 0) {
                charge.bucket().refund(-delta);
            }
            else {
                charge.bucket().forceConsume(delta);
            }
        }
        this.inputTokens = inputTokens;
        this.outputTokens = outputTokens;
    }

    /** Gives back everything the attempt holds, for an attempt that never went out. */
    void cancel() {
        for (BucketSet.Charge charge : this.charges) {
            charge.bucket().refund(charge.dimension().cost(this.inputTokens, this.outputTokens));
        }
    }

}
