package io.github.llmthrottle.client;

import java.util.concurrent.atomic.LongAdder;

/**
 * Running totals of one client and model since startup, as the endpoint's {@code totals} shows
 * them. Thread-safe and cheap to update on the hot path.
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

    /**
     * Counts a fallback away from this model.
     */
    public void recordFallback() {
        this.fallbacks.increment();
    }

    /**
     * A snapshot of the totals.
     * @return the snapshot
     */
    public Snapshot snapshot() {
        return new Snapshot(this.calls.sum(), this.attempts.sum(), this.succeeded.sum(), this.failed.sum(),
                this.rateLimited.sum(), this.overloaded.sum(), this.retries.sum(), this.fallbacks.sum(),
                this.rejected.sum(), this.inputTokens.sum(), this.outputTokens.sum());
    }

    /**
     * The totals at one instant.
     *
     * @param calls logical calls (one per request sent through the RestClient)
     * @param attempts HTTP attempts, retries included
     * @param succeeded calls that returned a response
     * @param failed calls that failed with an exception or a non-retryable error
     * @param rateLimited 429 responses
     * @param overloaded 529 and overloaded 503 responses
     * @param retries retries
     * @param fallbacks calls routed away from this model
     * @param rejected calls refused by admission (queue full, max-wait, tenant quota, circuit)
     * @param inputTokens input tokens the provider counted
     * @param outputTokens output tokens the provider counted
     */
    public record Snapshot(long calls, long attempts, long succeeded, long failed, long rateLimited, long overloaded,
            long retries, long fallbacks, long rejected, long inputTokens, long outputTokens) {

    }

}
