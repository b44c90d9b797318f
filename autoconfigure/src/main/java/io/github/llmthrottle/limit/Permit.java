package io.github.llmthrottle.limit;

/**
 * The right to send one HTTP attempt, held from admission until the attempt's outcome is
 * known. {@link #release(Outcome)} must be called exactly once on every path (later calls
 * are ignored); {@link #settle(long, long)} corrects the reserved tokens to what the
 * provider reported.
 */
public interface Permit {

    /**
     * Corrects the reservation to the provider's usage: unused reserved tokens are
     * refunded (a bucket never fills above its capacity), and tokens used above the
     * estimate are debited even if that overdraws the bucket, since the provider counted
     * them too. May be called more than once (each call corrects from the previous one)
     * and before or after {@link #release}.
     * @param inputTokens input tokens the provider counted
     * @param outputTokens output tokens the provider counted
     */
    void settle(long inputTokens, long outputTokens);

    /**
     * Ends the attempt: frees its concurrency slot and feeds the adaptive limit.
     * @param outcome how the attempt went
     */
    void release(Outcome outcome);

    /**
     * How an admitted attempt ended, as the adaptive concurrency limit needs to know it.
     */
    enum Outcome {

        /** The provider answered (any status that is not a throttling signal). */
        SUCCESS,

        /** Rate limited, overloaded or timed out: the limit should shrink. */
        DROPPED,

        /** Cancelled or failed for a reason that says nothing about capacity. */
        IGNORED

    }

}
