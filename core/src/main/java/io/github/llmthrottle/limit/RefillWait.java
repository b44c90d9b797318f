package io.github.llmthrottle.limit;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;

import io.github.llmthrottle.provider.RateLimitSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * How long after a 429 a refused call has to wait until it fits again, when the provider
 * gave no explicit wait but only the reset of the dimension it exhausted: a reset says
 * when that dimension's bucket is full again (Anthropic: "fully replenished"; OpenAI:
 * "resets to its initial state"), while a bucket that refills continuously at its
 * per-minute limit holds one call's cost much sooner. The wait of each exhausted
 * dimension (remaining {@code 0}) is the time to refill the call's cost at the lower of
 * the provider's and the configured limit, never past that dimension's reset; a dimension
 * whose limit is not known waits for its reset. The model's pause after the 429 lasts the
 * longest of them.
 */
public final class RefillWait {

    private static final BigDecimal MINUTE_NANOS = BigDecimal.valueOf(Duration.ofMinutes(1).toNanos());

    private RefillWait() {
    }

    /**
     * The wait until a call of the given cost fits each dimension the response says is
     * exhausted.
     * @param snapshot the rate-limit headers of the 429
     * @param configured the model's configured limits
     * @param inputTokens the refused call's input tokens
     * @param outputTokens the refused call's reserved output tokens
     * @param now the time now, on the clock the resets are read against
     * @return the wait, or {@code null} when no dimension is exhausted with a reset
     */
    public static @Nullable Duration untilFits(RateLimitSnapshot snapshot, ModelLimits configured, long inputTokens,
            long outputTokens, Instant now) {
        Duration wait = null;
        wait = longer(wait, dimension(snapshot.requestsLimit(), configured.requestsPerMinute(),
                snapshot.requestsRemaining(), snapshot.requestsReset(), 1, now));
        wait = longer(wait, dimension(snapshot.inputTokensLimit(), configured.inputTokensPerMinute(),
                snapshot.inputTokensRemaining(), snapshot.inputTokensReset(), inputTokens, now));
        wait = longer(wait, dimension(snapshot.outputTokensLimit(), configured.outputTokensPerMinute(),
                snapshot.outputTokensRemaining(), snapshot.outputTokensReset(), outputTokens, now));
        wait = longer(wait, dimension(snapshot.tokensLimit(), null, snapshot.tokensRemaining(), snapshot.tokensReset(),
                Dimension.TOKENS.cost(inputTokens, outputTokens), now));
        return wait;
    }

    private static @Nullable Duration dimension(@Nullable Long reported, @Nullable Long configured,
            @Nullable Long remaining, @Nullable Instant reset, long cost, Instant now) {
        if (remaining == null || remaining > 0 || reset == null) {
            return null;
        }
        Duration untilReset = Duration.between(now, reset);
        if (untilReset.isNegative()) {
            return Duration.ZERO;
        }
        Long limit = lower(reported, configured);
        if (limit == null || limit <= 0) {
            return untilReset;
        }
        // cost / limit of a minute, rounded up: never wakes a call before it fits
        BigDecimal nanos = BigDecimal.valueOf(Math.max(cost, 0))
            .multiply(MINUTE_NANOS)
            .divide(BigDecimal.valueOf(limit), 0, RoundingMode.CEILING);
        Duration fits = Duration.ofNanos(nanos.min(BigDecimal.valueOf(Long.MAX_VALUE)).longValue());
        return (fits.compareTo(untilReset) < 0) ? fits : untilReset;
    }

    private static @Nullable Long lower(@Nullable Long a, @Nullable Long b) {
        if (a == null || a <= 0) {
            return b;
        }
        return (b == null || a <= b) ? a : b;
    }

    private static @Nullable Duration longer(@Nullable Duration a, @Nullable Duration b) {
        if (a == null) {
            return b;
        }
        return (b == null || a.compareTo(b) >= 0) ? a : b;
    }

}
