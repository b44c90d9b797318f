package io.github.llmthrottle.actuate;

import java.time.Instant;

import io.github.llmthrottle.provider.RateLimitSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * The rate-limit values of the provider's last response.
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
public record ServerDescriptor(@Nullable Long requestsLimit, @Nullable Long requestsRemaining,
        @Nullable Instant requestsReset, @Nullable Long inputTokensLimit, @Nullable Long inputTokensRemaining,
        @Nullable Instant inputTokensReset, @Nullable Long outputTokensLimit, @Nullable Long outputTokensRemaining,
        @Nullable Instant outputTokensReset, @Nullable Long tokensLimit, @Nullable Long tokensRemaining,
        @Nullable Instant tokensReset, Instant observedAt) {

    static @Nullable ServerDescriptor of(@Nullable RateLimitSnapshot server) {
        if (server == null) {
            return null;
        }
        return new ServerDescriptor(server.requestsLimit(), server.requestsRemaining(), server.requestsReset(),
                server.inputTokensLimit(), server.inputTokensRemaining(), server.inputTokensReset(),
                server.outputTokensLimit(), server.outputTokensRemaining(), server.outputTokensReset(),
                server.tokensLimit(), server.tokensRemaining(), server.tokensReset(), server.observedAt());
    }

}
