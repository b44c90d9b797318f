package io.github.llmthrottle.limit;

import java.time.Instant;

import io.github.llmthrottle.provider.RateLimitSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one client and model's admission control, as the actuator shows it
 * ({@code MODEL_STATE} without circuit and totals, which other parts add).
 *
 * @param client the client name
 * @param model the model name
 * @param limits the configured limits
 * @param effectiveLimits the limits that govern now: the configured ones, lowered by any
 * lower {@code -limit} the provider reported
 * @param tokensPerMinute the combined input+output token limit learned from the provider
 * ({@link Dimension#TOKENS}), or {@code null}
 * @param available what the local buckets hold now
 * @param server the last rate-limit headers the provider sent, or {@code null}
 * @param pausedUntil until when the model is paused after a 429, or {@code null}
 * @param inFlight admitted attempts not yet released
 * @param concurrencyLimit the adaptive concurrency limit (every model has one;
 * {@code max-concurrency} is only its ceiling)
 * @param queued calls waiting for admission, per priority
 */
public record LimiterState(String client, String model, ModelLimits limits, ModelLimits effectiveLimits,
        @Nullable Long tokensPerMinute, Available available, @Nullable RateLimitSnapshot server,
        @Nullable Instant pausedUntil, int inFlight, @Nullable Integer concurrencyLimit, Queued queued) {

    /**
     * What the local buckets hold now; {@code null} for a dimension without a limit.
     * Negative when an attempt used more than it reserved.
     *
     * @param requests requests
     * @param inputTokens input tokens
     * @param outputTokens output tokens
     * @param tokens combined tokens ({@link Dimension#TOKENS})
     */
    public record Available(@Nullable Long requests, @Nullable Long inputTokens, @Nullable Long outputTokens,
            @Nullable Long tokens) {
    }

    /**
     * Calls waiting for admission, per priority (those waiting for a concurrency slot
     * included).
     *
     * @param realtime waiting {@code REALTIME} calls
     * @param normal waiting {@code NORMAL} calls
     * @param batch waiting {@code BATCH} calls
     */
    public record Queued(int realtime, int normal, int batch) {

        /**
         * All waiting calls.
         * @return the sum over priorities
         */
        public int total() {
            return this.realtime + this.normal + this.batch;
        }

    }

}
