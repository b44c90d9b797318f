package io.github.llmthrottle.limit;

import java.time.Duration;
import java.time.Instant;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Single-threaded tests of {@link ModelLimiter}'s slow start and of the burst it learns
 * from the provider's headers ({@link SlowStart}, {@link BurstCapacity}): waits advance
 * the fake clock.
 */
class ModelLimiterSlowStartTests {

    private final FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z");

    private final LocalBucketStore store = new LocalBucketStore(this.clock);

    private ModelLimiter limiter(ModelLimits limits) {
        return new ModelLimiter("anthropic", "opus", limits, 10, Duration.ofSeconds(30), (tenant) -> null, this.store,
                this.clock.advancingWaits(), LimiterOptions.DEFAULTS);
    }

    private static AdmissionRequest request(long in, Duration maxWait) {
        return new AdmissionRequest(Priority.NORMAL, null, in, 0, maxWait);
    }

    /** Anthropic's input token headers: limit, remaining, reset. */
    private static RateLimitSnapshot input(long limit, long remaining, Instant reset, Instant at) {
        return new RateLimitSnapshot(null, null, null, limit, remaining, reset, null, null, null, null, null, null, at);
    }

    @Test
    void beforeTheFirstHeadersOneCallGoesAtATime() throws Exception {
        ModelLimiter limiter = limiter(new ModelLimits(null, 60_000L, null, null));
        limiter.acquire(request(100, Duration.ofSeconds(1)));
        assertThatExceptionOfType(AdmissionTimeoutException.class)
            .isThrownBy(() -> limiter.acquire(request(100, Duration.ofSeconds(1))));
    }

    @Test
    void theFirstHeadersEndTheSlowStart() throws Exception {
        ModelLimiter limiter = limiter(new ModelLimits(null, 60_000L, null, null));
        limiter.acquire(request(100, Duration.ofSeconds(1)));
        Instant now = this.clock.instant();
        limiter.calibrate(input(60_000, 59_000, now.plusSeconds(1), now));
        Instant before = this.clock.instant();
        limiter.acquire(request(100, Duration.ofSeconds(1)));
        limiter.acquire(request(100, Duration.ofSeconds(1)));
        assertThat(this.clock.instant()).isEqualTo(before);
        assertThat(limiter.state().inFlight()).isEqualTo(3);
    }

    @Test
    void theNextCallGoesWhenTheProbeIsAnswered() throws Exception {
        ModelLimiter limiter = limiter(new ModelLimits(null, 60_000L, null, null));
        Permit probe = limiter.acquire(request(100, Duration.ofSeconds(1)));
        probe.release(Permit.Outcome.DROPPED);
        // refused (a 529 without headers): still probing, one at a time
        Permit next = limiter.acquire(request(100, Duration.ofSeconds(1)));
        assertThatExceptionOfType(AdmissionTimeoutException.class)
            .isThrownBy(() -> limiter.acquire(request(100, Duration.ofSeconds(1))));
        // answered without any headers: this provider does not report, nothing to wait
        // for
        next.release(Permit.Outcome.SUCCESS);
        limiter.acquire(request(100, Duration.ofSeconds(1)));
        limiter.acquire(request(100, Duration.ofSeconds(1)));
        assertThat(limiter.state().inFlight()).isEqualTo(2);
    }

    @Test
    void afterAnIdlePeriodTheModelProbesAgain() throws Exception {
        ModelLimiter limiter = limiter(new ModelLimits(null, 60_000L, null, null));
        Permit first = limiter.acquire(request(100, Duration.ofSeconds(1)));
        Instant now = this.clock.instant();
        limiter.calibrate(input(60_000, 59_000, now.plusSeconds(1), now));
        first.release(Permit.Outcome.SUCCESS);
        this.clock.advance(Duration.ofSeconds(59));
        limiter.acquire(request(100, Duration.ofSeconds(1))).release(Permit.Outcome.SUCCESS);
        this.clock.advance(Duration.ofSeconds(61));
        limiter.acquire(request(100, Duration.ofSeconds(1)));
        assertThatExceptionOfType(AdmissionTimeoutException.class)
            .isThrownBy(() -> limiter.acquire(request(100, Duration.ofSeconds(1))));
    }

    @Test
    void theProvidersBurstCapsTheBucket() throws Exception {
        ModelLimiter limiter = limiter(new ModelLimits(null, 60_000L, null, null));
        limiter.acquire(request(1_000, Duration.ofSeconds(1)));
        // the provider holds 20 s of its limit: 19,000 left, full in 1 s
        Instant now = this.clock.instant();
        limiter.calibrate(input(60_000, 19_000, now.plusSeconds(1), now));
        assertThat(limiter.state().available().inputTokens()).isLessThanOrEqualTo(19_000);
        this.clock.advance(Duration.ofMinutes(1));
        // a minute later the local bucket holds the provider's burst, not a minute's
        // worth
        assertThat(limiter.state().available().inputTokens()).isBetween(18_000L, 20_000L);
    }

    @Test
    void aCallLargerThanTheProvidersBurstWaitsForAFullBucketAndOwesTheRest() throws Exception {
        ModelLimiter limiter = limiter(new ModelLimits(null, 60_000L, null, null));
        limiter.acquire(request(1_000, Duration.ofSeconds(1))).release(Permit.Outcome.SUCCESS);
        Instant now = this.clock.instant();
        limiter.calibrate(input(60_000, 19_000, now.plusSeconds(1), now));
        // 30,000 is within the configured 60,000 a minute: never refused for the burst
        Permit permit = limiter.acquire(request(30_000, Duration.ofMinutes(1)));
        permit.settle(30_000, 0);
        assertThat(limiter.state().available().inputTokens()).isNegative();
    }

    @Test
    void aDriftAboveTheProvidersBucketIsCaughtByTheNextRoundedRemainingBeforeItCostsA429() throws Exception {
        // The provider refills 1,000 input tokens a second and holds 20 s of them:
        // 20,000.
        ModelLimiter limiter = limiter(new ModelLimits(null, 60_000L, null, null));
        Permit probe = limiter.acquire(request(200, Duration.ZERO));
        // it has 19,800 left (rounded to 20,000) and is full again within the second
        Instant now = this.clock.instant();
        limiter.calibrate(input(60_000, 20_000, now.plusSeconds(1), now));
        probe.release(Permit.Outcome.SUCCESS);
        assertThat(limiter.state().available().inputTokens()).isEqualTo(19_500);
        this.clock.advance(Duration.ofSeconds(1));
        // Both full: the provider's 20,000, the local 19,500. A burst of 19,000 goes at
        // once and, on a busy machine, reaches the provider 0.8 s later: its full bucket
        // lost that refill, which the local bucket counted.
        for (int i = 0; i < 19; i++) {
            limiter.acquire(request(1_000, Duration.ZERO));
        }
        this.clock.advance(Duration.ofMillis(800));
        long provider = 20_000 - 19_000;
        this.clock.advance(Duration.ofMillis(50));
        provider += 50;
        assertThat(limiter.state().available().inputTokens()).as("local, drifted above the provider's")
            .isEqualTo(1_350)
            .isGreaterThan(provider);
        // the first answer reports 1,050 rounded to 1,000, full again in 18.95 s (at
        // 20.8 s, a reset of 21 s)
        now = this.clock.instant();
        limiter.calibrate(input(60_000, 1_000, Instant.parse("2026-01-01T00:00:21Z"), now));
        assertThat(limiter.state().available().inputTokens()).as("local, after the answer")
            .isLessThanOrEqualTo(provider);
        // the next call of 1,200 goes only once the provider holds it
        Instant before = this.clock.instant();
        limiter.acquire(request(1_200, Duration.ofSeconds(5)));
        long waitedMillis = Duration.between(before, this.clock.instant()).toMillis();
        assertThat(provider + waitedMillis).as("the provider's bucket when the call reaches it")
            .isGreaterThanOrEqualTo(1_200);
    }

    @Test
    void aWholeMinutesBucketIsNotCapped() throws Exception {
        ModelLimiter limiter = limiter(new ModelLimits(null, 60_000L, null, null));
        limiter.acquire(request(30_000, Duration.ofSeconds(1))).release(Permit.Outcome.SUCCESS);
        Instant now = this.clock.instant();
        limiter.calibrate(input(60_000, 30_000, now.plusSeconds(30), now));
        this.clock.advance(Duration.ofMinutes(1));
        assertThat(limiter.state().available().inputTokens()).isEqualTo(60_000);
    }

    @Test
    void withoutSlowStartCallsGoAsTheBucketsAllow() throws Exception {
        ModelLimiter limiter = new ModelLimiter("anthropic", "opus", new ModelLimits(null, 60_000L, null, null), 10,
                Duration.ofSeconds(30), (tenant) -> null, this.store, this.clock.advancingWaits(),
                LimiterOptions.WITHOUT_SLOW_START);
        limiter.acquire(request(100, Duration.ofSeconds(1)));
        limiter.acquire(request(100, Duration.ofSeconds(1)));
        assertThat(limiter.state().inFlight()).isEqualTo(2);
    }

    @Test
    void everyModelHasAnAdaptiveConcurrencyLimit() {
        ModelLimiter limiter = limiter(ModelLimits.UNLIMITED);
        assertThat(limiter.state().concurrencyLimit()).isEqualTo(ConcurrencyLimits.DEFAULT_INITIAL);
        limiter.updateLimits(new ModelLimits(null, null, null, 5));
        assertThat(limiter.state().concurrencyLimit()).isEqualTo(5);
    }

}
