package io.github.llmthrottle.budget;

import java.util.concurrent.locks.ReentrantLock;

import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.quota.QuotaStore;
import org.jspecify.annotations.Nullable;

/**
 * What one attempt took from its budgets ({@link Budgets#reserve}): its estimated cost at
 * first, corrected by {@link #settle(Usage)} to what its usage cost, or given back by
 * {@link #cancel()}. {@link #around(Permit)} ties it to the attempt's {@link Permit}: an
 * attempt the provider refused (its permit released as {@link Permit.Outcome#DROPPED}),
 * or one released without any settlement that did not succeed, costs nothing; once the
 * provider has {@link #answered()} (a 2xx) the attempt is billed whatever follows, at its
 * usage or, when none came, at its estimate. Amounts are millionths of the currency.
 * Thread-safe.
 */
public final class BudgetReservation {

    /** The reservation of a call without any budget. */
    static final BudgetReservation NONE = new BudgetReservation(null, null, 0);

    private final QuotaStore.@Nullable Correction correction;

    private final @Nullable ModelPrice price;

    private final ReentrantLock lock = new ReentrantLock();

    /** What the counters hold for this attempt now. */
    private long counted;

    private volatile boolean answered;

    /** Whether the attempt was settled from its usage. */
    private volatile boolean settled;

    /**
     * The reservation of a call that counts against no budget.
     * @return a reservation that counts nothing
     */
    public static BudgetReservation none() {
        return NONE;
    }

    BudgetReservation(QuotaStore.@Nullable Correction correction, @Nullable ModelPrice price, long reserved) {
        this.correction = correction;
        this.price = price;
        this.counted = reserved;
    }

    /**
     * Records that the provider answered the attempt with a 2xx: it is billed from now
     * on.
     */
    public void answered() {
        this.answered = true;
    }

    /**
     * Corrects the budgets to what {@code usage} cost (the counters may go over their
     * budget: the provider billed it).
     * @param usage the tokens the provider counted
     */
    public void settle(Usage usage) {
        ModelPrice price = this.price;
        if (price != null) {
            this.settled = true;
            correct(price.costMicros(usage));
        }
    }

    /**
     * Gives back everything, for an attempt that never went out or was refused; nothing
     * once the provider has {@link #answered()}.
     */
    public void cancel() {
        if (!this.answered) {
            correct(0);
        }
    }

    private void correct(long micros) {
        QuotaStore.Correction correction = this.correction;
        if (correction == null) {
            return;
        }
        this.lock.lock();
        try {
            long delta = micros - this.counted;
            if (delta != 0) {
                correction.add(delta);
                this.counted = micros;
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * The permit of the attempt, giving this reservation back when the attempt ends
     * refused (see the class description).
     * @param permit the attempt's permit
     * @return a permit that also ends this reservation
     */
    public Permit around(Permit permit) {
        return (this.correction == null) ? permit : new BudgetPermit(permit);
    }

    private final class BudgetPermit implements Permit {

        private final Permit delegate;

        BudgetPermit(Permit delegate) {
            this.delegate = delegate;
        }

        @Override
        public void settle(long inputTokens, long outputTokens) {
            this.delegate.settle(inputTokens, outputTokens);
        }

        @Override
        public void settle(long inputTokens, long outputTokens, @Nullable RateLimitSnapshot settledHeaders) {
            this.delegate.settle(inputTokens, outputTokens, settledHeaders);
        }

        @Override
        public void release(Outcome outcome) {
            this.delegate.release(outcome);
            if (outcome == Outcome.DROPPED || (!BudgetReservation.this.settled && outcome != Outcome.SUCCESS)) {
                cancel();
            }
        }

    }

}
