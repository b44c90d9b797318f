package io.github.llmthrottle.limit;

import java.time.Duration;
import java.time.Instant;

import io.github.llmthrottle.provider.RateLimitSnapshot;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How long a refused call waits until it fits an exhausted bucket again.
 */
class RefillWaitTests {

    private static final Instant NOW = Instant.parse("2026-08-20T10:00:00Z");

    private static final Instant IN_A_MINUTE = NOW.plusSeconds(60);

    @Test
    void theCallsCostRefillsAtTheLowerOfTheReportedAndTheConfiguredLimit() {
        RateLimitSnapshot tokens = snapshot(null, null, 60_000L, 0L, IN_A_MINUTE);
        assertThat(RefillWait.untilFits(tokens, ModelLimits.UNLIMITED, 3000, 0, NOW)).isEqualTo(Duration.ofSeconds(3));
        assertThat(RefillWait.untilFits(tokens, new ModelLimits(null, 30_000L, null, null), 3000, 0, NOW))
            .isEqualTo(Duration.ofSeconds(6));
    }

    @Test
    void neverLongerThanTheResetNorShorterThanItWithoutAKnownLimit() {
        assertThat(RefillWait.untilFits(snapshot(null, null, 1000L, 0L, NOW.plusSeconds(10)), ModelLimits.UNLIMITED,
                5000, 0, NOW))
            .isEqualTo(Duration.ofSeconds(10));
        assertThat(RefillWait.untilFits(snapshot(null, null, null, 0L, NOW.plusSeconds(10)), ModelLimits.UNLIMITED,
                5000, 0, NOW))
            .isEqualTo(Duration.ofSeconds(10));
        assertThat(RefillWait.untilFits(snapshot(null, null, 1000L, 0L, NOW.minusSeconds(1)), ModelLimits.UNLIMITED,
                5000, 0, NOW))
            .isZero();
    }

    @Test
    void theLongestOfTheExhaustedDimensionsGovernsAndOnlyThoseCount() {
        RateLimitSnapshot both = snapshot(60L, 0L, 60_000L, 0L, IN_A_MINUTE);
        assertThat(RefillWait.untilFits(both, ModelLimits.UNLIMITED, 120, 0, NOW)).isEqualTo(Duration.ofSeconds(1));
        RateLimitSnapshot requestsLeft = snapshot(60L, 5L, 60_000L, 0L, IN_A_MINUTE);
        assertThat(RefillWait.untilFits(requestsLeft, ModelLimits.UNLIMITED, 120, 0, NOW))
            .isEqualTo(Duration.ofMillis(120));
        assertThat(
                RefillWait.untilFits(snapshot(60L, 5L, 60_000L, 1L, IN_A_MINUTE), ModelLimits.UNLIMITED, 120, 0, NOW))
            .isNull();
    }

    private static RateLimitSnapshot snapshot(Long requestsLimit, Long requestsRemaining, Long tokensLimit,
            Long tokensRemaining, Instant reset) {
        return new RateLimitSnapshot(requestsLimit, requestsRemaining, reset, tokensLimit, tokensRemaining, reset, null,
                null, null, null, null, null, NOW);
    }

}
