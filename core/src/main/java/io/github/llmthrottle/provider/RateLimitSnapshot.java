package io.github.llmthrottle.provider;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What a provider's response headers said about its rate limits, at one instant. Every
 * field is {@code null} when the response did not carry it (or carried a value meaning
 * "unknown", such as Azure's {@code -1}). A reset is the instant the bucket is full again
 * (Anthropic) or resets (OpenAI), already turned into an absolute instant.
 * {@code tokens*} is a combined input+output token dimension (OpenAI TPM, Anthropic
 * {@code anthropic-ratelimit-tokens-*}).
 *
 * @param requestsLimit requests allowed per period
 * @param requestsRemaining requests left
 * @param requestsReset when the request bucket is replenished
 * @param inputTokensLimit input tokens allowed per period
 * @param inputTokensRemaining input tokens left
 * @param inputTokensReset when the input token bucket is replenished
 * @param outputTokensLimit output tokens allowed per period
 * @param outputTokensRemaining output tokens left
 * @param outputTokensReset when the output token bucket is replenished
 * @param tokensLimit combined tokens allowed per period
 * @param tokensRemaining combined tokens left
 * @param tokensReset when the combined token bucket is replenished
 * @param observedAt when the response was received
 */
public record RateLimitSnapshot(@Nullable Long requestsLimit, @Nullable Long requestsRemaining,
        @Nullable Instant requestsReset, @Nullable Long inputTokensLimit, @Nullable Long inputTokensRemaining,
        @Nullable Instant inputTokensReset, @Nullable Long outputTokensLimit, @Nullable Long outputTokensRemaining,
        @Nullable Instant outputTokensReset, @Nullable Long tokensLimit, @Nullable Long tokensRemaining,
        @Nullable Instant tokensReset, Instant observedAt) {

    /**
     * Whether the response carried any rate-limit value at all.
     * @return {@code true} when at least one field is set
     */
    public boolean isEmpty() {
        return this.requestsLimit == null && this.requestsRemaining == null && this.requestsReset == null
                && this.inputTokensLimit == null && this.inputTokensRemaining == null && this.inputTokensReset == null
                && this.outputTokensLimit == null && this.outputTokensRemaining == null
                && this.outputTokensReset == null && this.tokensLimit == null && this.tokensRemaining == null
                && this.tokensReset == null;
    }

}
