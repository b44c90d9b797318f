package io.github.llmthrottle.limit;

import java.time.Duration;
import java.time.Instant;

import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A utilization below 1 ({@code llm.throttle.utilization}) admits only that share of
 * every limit, configured and provider-reported alike.
 */
class ModelLimiterUtilizationTests {

    private final FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z");

    private ModelLimiter limiter(ModelLimits limits) {
        return new ModelLimiter("anthropic", "opus", limits, 100, Duration.ofSeconds(30), (tenant) -> null,
                new LocalBucketStore(this.clock), this.clock.advancingWaits(), LimiterOptions.WITHOUT_SLOW_START);
    }

    @Test
    void aConfiguredLimitAdmitsOnlyItsShare() throws Exception {
        ModelLimiter limiter = limiter(new ModelLimits(10L, 100_000L, 8_000L, null).withUtilization(0.5));
        assertThat(limiter.state().effectiveLimits()).isEqualTo(new ModelLimits(5L, 50_000L, 4_000L, null));
        Instant start = this.clock.instant();
        for (int i = 0; i < 5; i++) {
            limiter.acquire(ModelLimiterTests.request(10, 10)).release(Permit.Outcome.SUCCESS);
        }
        assertThat(this.clock.instant()).isEqualTo(start);
        limiter.acquire(ModelLimiterTests.request(10, 10)).release(Permit.Outcome.SUCCESS);
        // the sixth request waits for a fifth of a minute's refill of 5 requests
        assertThat(Duration.between(start, this.clock.instant())).isGreaterThanOrEqualTo(Duration.ofSeconds(11));
    }

    @Test
    void aProviderReportedLimitAdmitsOnlyItsShareAndItsRemainingKeepsTheMargin() {
        ModelLimiter limiter = limiter(ModelLimits.UNLIMITED.withUtilization(0.9));
        Instant now = this.clock.instant();
        limiter.calibrate(new RateLimitSnapshot(100L, 100L, null, 50_000L, 20_001L, null, null, null, null, null, null,
                null, now));
        LimiterState state = limiter.state();
        assertThat(state.effectiveLimits().requestsPerMinute()).isEqualTo(90);
        assertThat(state.effectiveLimits().inputTokensPerMinute()).isEqualTo(45_000);
        // full at the provider: the local bucket holds the admitted share
        assertThat(state.available().requests()).isEqualTo(90);
        // 20,001 left at the provider, of which the 5,000 not admitted stay unspent
        assertThat(state.available().inputTokens()).isEqualTo(15_001);
    }

    @Test
    void aUtilizationOutsideZeroToOneIsRefused() {
        for (double utilization : new double[] { 0, -0.5, 1.01, Double.NaN }) {
            assertThatIllegalArgumentException().isThrownBy(() -> ModelLimits.UNLIMITED.withUtilization(utilization))
                .withMessageContaining("utilization must be more than 0 and at most 1");
        }
    }

}
