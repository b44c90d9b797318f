package io.github.llmthrottle.quota;

import java.util.concurrent.locks.ReentrantLock;

import io.github.llmthrottle.limit.Dimension;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What one attempt took from its long-window quotas ({@link TokenQuotas#reserve}): its
 * estimate at first, corrected by {@link #settle(long)} to what it used, or given back by
 * {@link #cancel()}. {@link #around(Permit)} ties it to the attempt's {@link Permit}:
 * each settlement of the permit corrects the quotas to the input plus output tokens it
 * was settled with; an attempt the provider refused (its permit released as
 * {@link Permit.Outcome#DROPPED}: 429, 529, a timeout, an I/O error) counts nothing, nor
 * does one released without any settlement that did not succeed; a success the provider
 * reported no usage for keeps its estimate. Once the provider has {@link #answered()} (a
 * 2xx), the attempt is billed whatever follows: an error event in its stream, a body that
 * breaks or a stream closed early keep what its usage said, or its estimate when no usage
 * came.
 *
 * <p>
 * Usage far above the estimate ({@value #IMPLAUSIBLE_FACTOR} times it, and more than
 * {@value #IMPLAUSIBLE_FLOOR} tokens) is not believed: a proxy's garbage or a unit mix-up
 * would otherwise use up a day's or a month's quota in one call, whatever the per-minute
 * limits (a model may have none). It is counted as the estimate, and logged. Thread-safe.
 */
public final class QuotaReservation {

    private static final Log logger = LogFactory.getLog(QuotaReservation.class);

    /** How many times its estimate a call's usage may be before it is not believed. */
    static final long IMPLAUSIBLE_FACTOR = 10;

    /** Usage up to this many tokens is believed whatever the estimate. */
    static final long IMPLAUSIBLE_FLOOR = 100_000;

    /** The reservation of a call without any quota. */
    static final QuotaReservation NONE = new QuotaReservation(null, 0);

    /** Where the corrections go, {@code null} without quotas. */
    private final QuotaStore.@Nullable Correction correction;

    private final ReentrantLock lock = new ReentrantLock();

    /** The estimate the attempt reserved. */
    private final long reserved;

    /** What the counters hold for this attempt now. */
    private long counted;

    /** Whether the provider answered with a 2xx: the attempt is billed. */
    private volatile boolean answered;

    QuotaReservation(QuotaStore.@Nullable Correction correction, long reserved) {
        this.correction = correction;
        this.reserved = reserved;
        this.counted = reserved;
    }

    /**
     * Records that the provider answered the attempt with a 2xx: it is billed from now
     * on, so it is never given back, only settled to its usage (its estimate stays when
     * none comes).
     */
    public void answered() {
        this.answered = true;
    }

    /**
     * Corrects the quotas to {@code tokens}, the input plus output tokens the attempt
     * used (the counters may go over their quota: the provider counted them).
     * @param tokens the tokens used
     */
    public void settle(long tokens) {
        QuotaStore.Correction correction = this.correction;
        if (correction == null) {
            return;
        }
        long used = Math.max(0, tokens);
        if (used > Math.max(IMPLAUSIBLE_FLOOR, (this.reserved > Long.MAX_VALUE / IMPLAUSIBLE_FACTOR) ? Long.MAX_VALUE
                : this.reserved * IMPLAUSIBLE_FACTOR)) {
            logger.warn("The provider reported implausible usage of " + used + " tokens for a call estimated at "
                    + this.reserved + "; counted against its quotas as " + this.reserved);
            used = this.reserved;
        }
        this.lock.lock();
        try {
            long delta = used - this.counted;
            if (delta != 0) {
                correction.add(delta);
                this.counted += delta;
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Gives back everything, for an attempt that never went out or was refused; nothing
     * once the provider has {@link #answered()}.
     */
    public void cancel() {
        if (!this.answered) {
            settle(0);
        }
    }

    /**
     * The permit of the attempt, settling this reservation with it (see the class
     * description).
     * @param permit the attempt's permit from admission
     * @return a permit that settles both
     */
    public Permit around(Permit permit) {
        return (this.correction == null) ? permit : new QuotaPermit(permit);
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
            if (!this.refused || QuotaReservation.this.answered) {
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
