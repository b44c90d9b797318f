package io.github.llmthrottle.client;

import java.math.BigDecimal;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Running totals of one client and model since startup, as the endpoint's {@code totals}
 * shows them. Fed only by the events of {@link ThrottleObserver} (through
 * {@link TotalsObserver}), the same events that metrics and health see, so the totals
 * never disagree with them. Thread-safe and cheap to update on the hot path.
 */
public final class ModelTotals {

    final LongAdder calls = new LongAdder();

    final LongAdder attempts = new LongAdder();

    final LongAdder succeeded = new LongAdder();

    final LongAdder failed = new LongAdder();

    final LongAdder rateLimited = new LongAdder();

    final LongAdder overloaded = new LongAdder();

    final LongAdder retries = new LongAdder();

    final LongAdder fallbacks = new LongAdder();

    final LongAdder rejected = new LongAdder();

    final LongAdder inputTokens = new LongAdder();

    final LongAdder outputTokens = new LongAdder();

    final LongAdder cacheReadTokens = new LongAdder();

    final LongAdder cacheWriteTokens = new LongAdder();

    /** What the calls cost, in the currency; added atomically. */
    private final AtomicReference<BigDecimal> cost = new AtomicReference<>(BigDecimal.ZERO);

    void addCost(BigDecimal amount) {
        this.cost.accumulateAndGet(amount, BigDecimal::add);
    }

    /**
     * What the calls of this model cost since startup, in the configured currency (zero
     * for a model without a price).
     * @return the cost
     */
    public BigDecimal cost() {
        return Objects.requireNonNull(this.cost.get());
    }

    /**
     * A snapshot of the totals.
     * @return the snapshot
     */
    public Snapshot snapshot() {
        return new Snapshot(this.calls.sum(), this.attempts.sum(), this.succeeded.sum(), this.failed.sum(),
                this.rateLimited.sum(), this.overloaded.sum(), this.retries.sum(), this.fallbacks.sum(),
                this.rejected.sum(), this.inputTokens.sum(), this.outputTokens.sum(), this.cacheReadTokens.sum(),
                this.cacheWriteTokens.sum());
    }

    /**
     * The totals at one instant.
     *
     * @param calls logical calls that ended (one per request sent through a throttled
     * client)
     * @param attempts HTTP attempts that ended, retries included
     * @param succeeded calls that returned a response
     * @param failed calls that failed with an exception or a non-retryable error
     * @param rateLimited rate-limit answers (429s, and rate-limit error events inside a
     * stream)
     * @param overloaded overloaded answers (529, overloaded 503, overloaded error events)
     * @param retries retries
     * @param fallbacks calls routed away from this model
     * @param rejected calls refused by admission (queue full, max-wait, tenant quota,
     * circuit)
     * @param inputTokens input tokens the provider counted against its limits (cache
     * writes included, Anthropic's cache reads not)
     * @param outputTokens output tokens the provider counted
     * @param cacheReadTokens input tokens read from the prompt cache
     * @param cacheWriteTokens input tokens written to the prompt cache (part of
     * {@code inputTokens})
     */
    public record Snapshot(long calls, long attempts, long succeeded, long failed, long rateLimited, long overloaded,
            long retries, long fallbacks, long rejected, long inputTokens, long outputTokens, long cacheReadTokens,
            long cacheWriteTokens) {

    }

}
