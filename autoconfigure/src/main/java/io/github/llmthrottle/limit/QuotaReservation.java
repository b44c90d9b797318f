package io.github.llmthrottle.limit;

import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

import io.github.llmthrottle.provider.RateLimitSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * What one attempt took from its long-window quotas ({@link TokenQuotas#reserve}): its
 * estimate at first, corrected by {@link #settle(long)} to what it used, or given back by
 * {@link #cancel()}. {@link #around(Permit)} ties it to the attempt's {@link Permit}:
 * each settlement of the permit corrects the quotas to the input plus output tokens it
 * was settled with; an attempt the provider refused (its permit released as
 * {@link Permit.Outcome#DROPPED}: 429, 529, a timeout, an I/O error) counts nothing, nor
 * does one released without any settlement that did not succeed; a success the provider
 * reported no usage for keeps its estimate. Thread-safe.
 */
public final class QuotaReservation {

    /** The reservation of a call without any quota. */
    static final QuotaReservation NONE = new QuotaReservation(null, List.of(), 0);

    private final QuotaStore store;

    private final List<QuotaStore.Counter> counters;

    private final ReentrantLock lock = new ReentrantLock();

    /** What the counters hold for this attempt now. */
    private long counted;

    QuotaReservation(QuotaStore store, List<QuotaStore.Counter> counters, long reserved) {
        this.store = store;
        this.counters = List.copyOf(counters);
        this.counted = reserved;
    }

    /**
     * Corrects the quotas to {@code tokens}, the input plus output tokens the attempt
     * used (the counters may go over their quota: the provider counted them).
     * @param tokens the tokens used
     */
    public void settle(long tokens) {
        if (this.counters.isEmpty()) {
            return;
        }
        this.lock.lock();
        try {
            long delta = Math.max(0, tokens) - this.counted;
            if (delta != 0) {
                this.store.add(this.counters, delta);
                this.counted += delta;
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Gives back everything, for an attempt that never went out or was refused. */
    public void cancel() {
        settle(0);
    }

    /**
     * The permit of the attempt, settling this reservation with it (see the class
     * description).
     * @param permit the attempt's permit from admission
     * @return a permit that settles both
     */
    public Permit around(Permit permit) {
        return this.counters.isEmpty() ? permit : new QuotaPermit(permit);
    }

    private final class QuotaPermit implements Permit {

        private final Permit delegate;

        private volatile boolean settled;

        private volatile boolean refused;

        QuotaPermit(Permit delegate) {
            this.delegate = delegate;
        }

        @Override
        public void settle(long inputTokens, long outputTokens) {
            settle(inputTokens, outputTokens, null);
        }

        @Override
        public void settle(long inputTokens, long outputTokens, @Nullable RateLimitSnapshot settledHeaders) {
            this.delegate.settle(inputTokens, outputTokens, settledHeaders);
            this.settled = true;
            if (!this.refused) {
                QuotaReservation.this.settle(Dimension.saturatedAdd(inputTokens, outputTokens));
            }
        }

        @Override
        public void release(Outcome outcome) {
            this.delegate.release(outcome);
            if (outcome == Outcome.DROPPED || (!this.settled && outcome != Outcome.SUCCESS)) {
                this.refused = true;
                cancel();
            }
        }

    }

}
