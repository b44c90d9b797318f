package io.github.llmthrottle.limit;

import io.github.llmthrottle.provider.RateLimitSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * The right to send one HTTP attempt, held from admission until the attempt's outcome is
 * known. {@link #release(Outcome)} must be called exactly once on every path (later calls
 * are ignored); {@link #settle(long, long)} corrects the reserved tokens to what the
 * provider reported.
 *
 * <p>
 * A response's rate-limit headers describe the provider's buckets at the moment it wrote
 * them. A whole response (and an error) is written after the provider has settled the
 * attempt: its output tokens at what it produced, not at {@code max_tokens}; a stream's
 * headers come before the answer, while the provider still counts what it reserved. The
 * headers of a whole response are therefore applied with its settlement,
 * {@link #settle(long, long, RateLimitSnapshot)}: applied before it, they would pull the
 * buckets down to a level that already holds the unused reservation, and the settlement
 * would then give it back a second time.
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
     * Settles as {@link #settle(long, long)} does, then applies the rate-limit headers of
     * a response the provider wrote after it had settled the attempt (see the class
     * description), as one change: no call is admitted on the refund before the headers
     * pull the buckets down.
     * @param inputTokens input tokens the provider counted
     * @param outputTokens output tokens the provider counted
     * @param settledHeaders the headers of the response, {@code null} or empty for none
     */
    void settle(long inputTokens, long outputTokens, @Nullable RateLimitSnapshot settledHeaders);

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
