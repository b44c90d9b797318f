package io.github.llmthrottle.limit;

import java.util.ArrayList;
import java.util.List;

import io.github.llmthrottle.store.Settlement;
import org.jspecify.annotations.Nullable;

/**
 * What one admitted attempt took from the buckets of its model and of its tenant. An
 * attempt takes one request, its estimated input tokens and its {@code max_tokens} of
 * output tokens from every bucket at once, or nothing.
 * {@link #settle(long, long, Runnable)} refunds what it did not use and debits what it
 * used above the estimate, letting the bucket go negative (the provider counted those
 * tokens too, so the next calls must wait for them); {@link #cancel(Runnable)} gives
 * everything back for an attempt that never went out. Both go where the buckets were
 * taken ({@link Settlement}).
 *
 * <p>
 * Not thread-safe: the owning {@link ModelLimiter} guards it with its lock.
 */
final class Reservation {

    private static final Dimension[] NO_DIMENSIONS = {};

    /** The buckets in this JVM it was taken from; {@code null} for a shared store. */
    private final @Nullable List<BucketSet.Charge> charges;

    private final Dimension[] dimensions;

    private final @Nullable Settlement settlement;

    private long inputTokens;

    private long outputTokens;

    /**
     * A reservation taken from a shared store's buckets of {@code dimensions}, settled
     * through {@code settlement}.
     */
    Reservation(Dimension[] dimensions, Settlement settlement, long inputTokens, long outputTokens) {
        this.charges = null;
        this.dimensions = dimensions;
        this.settlement = settlement;
        this.inputTokens = inputTokens;
        this.outputTokens = outputTokens;
    }

    private Reservation(List<BucketSet.Charge> charges, long inputTokens, long outputTokens) {
        this.charges = charges;
        this.dimensions = NO_DIMENSIONS;
        this.settlement = null;
        this.inputTokens = inputTokens;
        this.outputTokens = outputTokens;
    }

    /**
     * Takes what an attempt needs from every bucket of the model and of its tenant, or
     * from none, in buckets that live in this JVM.
     * @param model the model's buckets
     * @param tenant the tenant's buckets, {@code null} without a tenant
     * @param inputTokens the estimated input tokens
     * @param outputTokens the reserved output tokens
     * @return the reservation, or {@code null} if a bucket did not hold enough and
     * nothing was taken
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
     * @param givenBack what to do once a refund has been applied in a shared store
     */
    void settle(long inputTokens, long outputTokens, Runnable givenBack) {
        if (this.charges != null) {
            // in this JVM, applied at once (no array on the hot path of the memory store)
            for (BucketSet.Charge charge : this.charges) {
                long delta = charge.dimension().cost(inputTokens, outputTokens)
                        - charge.dimension().cost(this.inputTokens, this.outputTokens);
                if (delta < 0) {
                    charge.bucket().refund(-delta);
                }
                else if (delta > 0) {
                    charge.bucket().forceConsume(delta);
                }
            }
            this.inputTokens = inputTokens;
            this.outputTokens = outputTokens;
            return;
        }
        long[] amounts = new long[this.dimensions.length];
        boolean changed = false;
        for (int i = 0; i < amounts.length; i++) {
            // costs are never negative: the difference cannot overflow
            amounts[i] = this.dimensions[i].cost(inputTokens, outputTokens)
                    - this.dimensions[i].cost(this.inputTokens, this.outputTokens);
            changed |= amounts[i] != 0;
        }
        this.inputTokens = inputTokens;
        this.outputTokens = outputTokens;
        if (changed && this.settlement != null) {
            this.settlement.adjust(amounts, givenBack);
        }
    }

    /**
     * Gives back everything the attempt holds, for an attempt that never went out.
     * @param givenBack what to do once it has been applied in a shared store
     */
    void cancel(Runnable givenBack) {
        if (this.charges != null) {
            for (BucketSet.Charge charge : this.charges) {
                charge.bucket().refund(charge.dimension().cost(this.inputTokens, this.outputTokens));
            }
            return;
        }
        long[] amounts = new long[this.dimensions.length];
        boolean changed = false;
        for (int i = 0; i < amounts.length; i++) {
            amounts[i] = -this.dimensions[i].cost(this.inputTokens, this.outputTokens);
            changed |= amounts[i] != 0;
        }
        if (changed && this.settlement != null) {
            this.settlement.adjust(amounts, givenBack);
        }
    }

}
