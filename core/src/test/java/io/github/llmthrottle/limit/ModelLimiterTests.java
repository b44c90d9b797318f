package io.github.llmthrottle.limit;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.QueueFullException;
import io.github.llmthrottle.TenantQuotaExceededException;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.time.FakeClock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

/**
 * Single-threaded tests of {@link ModelLimiter}: waits advance the fake clock.
 */
class ModelLimiterTests {

    private final FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z");

    private final LocalBucketStore store = new LocalBucketStore(this.clock);

    private Function<String, @Nullable TenantLimits> tenants = (tenant) -> null;

    private int capacity = 10;

    private ModelLimiter limiter(ModelLimits limits) {
        return new ModelLimiter("anthropic", "opus", limits, this.capacity, Duration.ofSeconds(30), this.tenants,
                this.store, this.clock.advancingWaits(), LimiterOptions.WITHOUT_SLOW_START);
    }

    static AdmissionRequest request(long in, long out) {
        return new AdmissionRequest(Priority.NORMAL, null, in, out, null);
    }

    static AdmissionRequest request(long in, long out, Duration maxWait) {
        return new AdmissionRequest(Priority.NORMAL, null, in, out, maxWait);
    }

    static ModelLimits limits(Long rpm, Long itpm, Long otpm) {
        return new ModelLimits(rpm, itpm, otpm, null);
    }

    private Duration elapsedSince(Instant start) {
        return Duration.between(start, this.clock.instant());
    }

    private static RateLimitSnapshot anthropic(Long requestsLimit, Long requestsRemaining, Long inputLimit,
            Long inputRemaining, Long outputLimit, Long outputRemaining, Instant at) {
        return new RateLimitSnapshot(requestsLimit, requestsRemaining, null, inputLimit, inputRemaining, null,
                outputLimit, outputRemaining, null, null, null, null, at);
    }

    @Test
    void admissionTakesOneRequestInputTokensAndReservedOutputTokens() throws Exception {
        ModelLimiter limiter = limiter(limits(50L, 30_000L, 8_000L));
        limiter.acquire(request(1_000, 2_000));
        LimiterState state = limiter.state();
        assertThat(state.available().requests()).isEqualTo(49);
        assertThat(state.available().inputTokens()).isEqualTo(29_000);
        assertThat(state.available().outputTokens()).isEqualTo(6_000);
        assertThat(state.inFlight()).isEqualTo(1);
    }

    @Test
    void aCallWhoseInputIsRecountedLowerAsksOnlyForWhatItCountsNow() throws Exception {
        ModelLimiter limiter = limiter(limits(50L, 60_000L, 8_000L));
        limiter.acquire(request(40_000, 0));
        Instant start = this.clock.instant();
        AtomicLong counted = new AtomicLong(1_000);
        Permit permit = limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 31_000, 100, null, counted::get));
        // 31,000 would have waited for 11,000 tokens to refill
        assertThat(elapsedSince(start)).isZero();
        assertThat(limiter.state().available().inputTokens()).isEqualTo(19_000);
        permit.settle(1_200, 100);
        assertThat(limiter.state().available().inputTokens()).isEqualTo(18_800);
    }

    @Test
    void aRecountThatIsHigherOrFailsChangesNothing() {
        AdmissionRequest request = new AdmissionRequest(Priority.NORMAL, null, 5_000, 100, null, () -> 9_000);
        assertThat(request.recounted()).isSameAs(request);
        AdmissionRequest failing = new AdmissionRequest(Priority.NORMAL, null, 5_000, 100, null, () -> -1);
        assertThat(failing.recounted()).isSameAs(failing);
        AdmissionRequest lower = new AdmissionRequest(Priority.NORMAL, null, 5_000, 100, null, () -> 700);
        assertThat(lower.recounted().inputTokens()).isEqualTo(700);
    }

    @Test
    void aCallAboveTheLearnedBurstWaitsForAFullBucketInsteadOfBeingRefused() throws Exception {
        ModelLimiter limiter = limiter(limits(600L, 60_000L, 60_000L));
        // the provider holds 10 s: 4,500 left at least, full again in 5 s (4,000 more)
        Instant now = this.clock.instant();
        limiter.calibrate(new RateLimitSnapshot(600L, 599L, null, 60_000L, 5_000L, now.plusSeconds(5), 60_000L, 60_000L,
                null, null, null, null, now));
        Instant start = this.clock.instant();
        // 20,000 fits the configured 60,000 a minute: never refused for the burst
        Permit permit = limiter.acquire(request(20_000, 0));
        assertThat(elapsedSince(start)).isBetween(Duration.ofSeconds(3), Duration.ofSeconds(6));
        permit.settle(20_000, 0);
        // what the burst did not hold is owed: the bucket is below zero
        assertThat(limiter.state().available().inputTokens()).isNegative();
    }

    @Test
    void settleRefundsUnusedReservedTokens() throws Exception {
        ModelLimiter limiter = limiter(limits(50L, 30_000L, 8_000L));
        Permit permit = limiter.acquire(request(1_000, 2_000));
        permit.settle(900, 300);
        assertThat(limiter.state().available().inputTokens()).isEqualTo(29_100);
        assertThat(limiter.state().available().outputTokens()).isEqualTo(7_700);
        permit.release(Permit.Outcome.SUCCESS);
        assertThat(limiter.state().inFlight()).isZero();
    }

    @Test
    void settleDebitsOveruseLettingTheBucketGoNegative() throws Exception {
        ModelLimiter limiter = limiter(limits(null, 1_000L, null));
        Permit permit = limiter.acquire(request(1_000, 0));
        permit.settle(1_600, 0);
        assertThat(limiter.state().available().inputTokens()).isEqualTo(-600);
        Instant start = this.clock.instant();
        limiter.acquire(request(100, 0, Duration.ofMinutes(1)));
        // 700 tokens at 1000 per minute
        assertThat(elapsedSince(start).toMillis()).isCloseTo(42_000, within(100L));
    }

    @Test
    void settleTwiceCorrectsFromThePreviousSettlement() throws Exception {
        ModelLimiter limiter = limiter(limits(null, null, 8_000L));
        Permit permit = limiter.acquire(request(0, 2_000));
        permit.settle(0, 1_000);
        permit.settle(0, 1_500);
        assertThat(limiter.state().available().outputTokens()).isEqualTo(6_500);
    }

    @Test
    void callWaitsForTheBucketToRefill() throws Exception {
        ModelLimiter limiter = limiter(limits(60L, null, null));
        for (int i = 0; i < 60; i++) {
            limiter.acquire(request(0, 0)).release(Permit.Outcome.SUCCESS);
        }
        Instant start = this.clock.instant();
        limiter.acquire(request(0, 0));
        assertThat(elapsedSince(start).toMillis()).isCloseTo(1_000, within(10L));
    }

    @Test
    void callWaitsForTheSlowestDimension() throws Exception {
        ModelLimiter limiter = limiter(limits(60L, 6_000L, 600L));
        limiter.acquire(request(6_000, 600));
        Instant start = this.clock.instant();
        limiter.acquire(request(100, 300));
        // output tokens: 300 at 10 per second
        assertThat(elapsedSince(start).toMillis()).isCloseTo(30_000, within(50L));
    }

    @Test
    void failedAdmissionTakesNothingFromAnyBucket() throws Exception {
        ModelLimiter limiter = limiter(limits(60L, 6_000L, 600L));
        limiter.acquire(request(0, 600));
        assertThatExceptionOfType(AdmissionTimeoutException.class)
            .isThrownBy(() -> limiter.acquire(request(100, 300, Duration.ofSeconds(5))));
        assertThat(limiter.state().available().requests()).isGreaterThanOrEqualTo(59);
        assertThat(limiter.state().available().inputTokens()).isEqualTo(6_000);
        assertThat(limiter.state().queued().total()).isZero();
        assertThat(limiter.state().inFlight()).isOne();
    }

    @Test
    void timeoutSaysWhenTheCallCouldGoThrough() throws Exception {
        ModelLimiter limiter = limiter(limits(null, null, 600L));
        limiter.acquire(request(0, 600));
        Instant start = this.clock.instant();
        AdmissionTimeoutException ex = org.junit.jupiter.api.Assertions.assertThrows(AdmissionTimeoutException.class,
                () -> limiter.acquire(request(0, 300, Duration.ofSeconds(10))));
        assertThat(elapsedSince(start)).isEqualTo(Duration.ofSeconds(10));
        assertThat(ex.getRetryAfter().toMillis()).isCloseTo(20_000, within(50L));
        assertThat(ex.getClient()).isEqualTo("anthropic");
        assertThat(ex.getModel()).isEqualTo("opus");
    }

    @Test
    void requestLargerThanAWholeBucketIsRejectedAtOnce() {
        ModelLimiter limiter = limiter(limits(50L, 30_000L, 8_000L));
        Instant start = this.clock.instant();
        assertThatExceptionOfType(DemandExceedsLimitException.class)
            .isThrownBy(() -> limiter.acquire(request(40_000, 100)))
            .satisfies((ex) -> {
                assertThat(ex.getDimension()).isEqualTo(Dimension.INPUT_TOKENS);
                assertThat(ex.getDemand()).isEqualTo(40_000);
                assertThat(ex.getLimit()).isEqualTo(30_000);
                assertThat(ex.getRetryAfter()).isNull();
                assertThat(ex.getMessage()).contains("input tokens");
            });
        assertThat(this.clock.instant()).isEqualTo(start);
        assertThat(limiter.state().available().inputTokens()).isEqualTo(30_000);
    }

    @Test
    void unsetLimitsDoNotLimit() throws Exception {
        ModelLimiter limiter = limiter(ModelLimits.UNLIMITED);
        Instant start = this.clock.instant();
        for (int i = 0; i < 1_000; i++) {
            limiter.acquire(request(1_000_000, 1_000_000)).release(Permit.Outcome.SUCCESS);
        }
        assertThat(this.clock.instant()).isEqualTo(start);
        assertThat(limiter.state().available().requests()).isNull();
    }

    @Test
    void serverLimitLowerThanConfigurationGoverns() throws Exception {
        ModelLimiter limiter = limiter(limits(1_000L, 450_000L, 90_000L));
        limiter.calibrate(anthropic(50L, null, 30_000L, null, 8_000L, null, this.clock.instant()));
        LimiterState state = limiter.state();
        assertThat(state.effectiveLimits()).isEqualTo(new ModelLimits(50L, 30_000L, 8_000L, null));
        assertThat(state.limits()).isEqualTo(limits(1_000L, 450_000L, 90_000L));
        assertThat(state.available().inputTokens()).isEqualTo(30_000);
        assertThatExceptionOfType(DemandExceedsLimitException.class)
            .isThrownBy(() -> limiter.acquire(request(40_000, 0)));
    }

    @Test
    void serverLimitHigherThanConfigurationIsIgnored() throws Exception {
        ModelLimiter limiter = limiter(limits(50L, 30_000L, 8_000L));
        limiter.acquire(request(10_000, 0));
        limiter.calibrate(anthropic(1_000L, 999L, 450_000L, 449_000L, 90_000L, 89_000L, this.clock.instant()));
        LimiterState state = limiter.state();
        assertThat(state.effectiveLimits()).isEqualTo(limits(50L, 30_000L, 8_000L));
        assertThat(state.available().requests()).isEqualTo(49);
        assertThat(state.available().inputTokens()).isEqualTo(20_000);
        assertThat(state.available().outputTokens()).isEqualTo(8_000);
    }

    @Test
    void serverLimitAppliesToAModelWithoutConfiguredLimits() throws Exception {
        ModelLimiter limiter = limiter(ModelLimits.UNLIMITED);
        limiter.calibrate(anthropic(50L, 10L, null, null, null, null, this.clock.instant()));
        assertThat(limiter.state().effectiveLimits().requestsPerMinute()).isEqualTo(50);
        assertThat(limiter.state().available().requests()).isEqualTo(10);
    }

    @Test
    void serverRemainingPullsTheBucketDown() throws Exception {
        ModelLimiter limiter = limiter(limits(50L, 30_000L, 8_000L));
        limiter.calibrate(anthropic(50L, 20L, 30_000L, 12_345L, 8_000L, 7_999L, this.clock.instant()));
        LimiterState state = limiter.state();
        assertThat(state.available().requests()).isEqualTo(20);
        assertThat(state.available().inputTokens()).isEqualTo(12_345);
        assertThat(state.available().outputTokens()).isEqualTo(7_999);
        assertThat(state.server().requestsRemaining()).isEqualTo(20);
    }

    @Test
    void roundedTokenRemainingIsTakenAsTheLeastItCanMean() throws Exception {
        ModelLimiter limiter = limiter(limits(null, 30_000L, null));
        // a value that is not a multiple of a thousand was not rounded
        limiter.calibrate(anthropic(null, null, 30_000L, 12_345L, null, null, this.clock.instant()));
        assertThat(limiter.state().available().inputTokens()).isEqualTo(12_345);
        // Anthropic rounds to the nearest thousand: 12,000 may be 11,500
        limiter.calibrate(anthropic(null, null, 30_000L, 12_000L, null, null, this.clock.instant()));
        assertThat(limiter.state().available().inputTokens()).isEqualTo(11_500);
        limiter.calibrate(anthropic(null, null, 30_000L, 0L, null, null, this.clock.instant()));
        assertThat(limiter.state().available().inputTokens()).isZero();
    }

    @Test
    void olderObservationIsAgedByTheRefillSinceItWasMade() throws Exception {
        ModelLimiter limiter = limiter(limits(60L, null, null));
        Instant observed = this.clock.instant();
        this.clock.advance(Duration.ofSeconds(10));
        limiter.calibrate(anthropic(60L, 0L, null, null, null, null, observed));
        assertThat(limiter.state().available().requests()).isEqualTo(10);
    }

    @Test
    void serverRemainingNeverRaisesTheBucket() throws Exception {
        ModelLimiter limiter = limiter(limits(50L, null, null));
        for (int i = 0; i < 40; i++) {
            limiter.acquire(request(0, 0)).release(Permit.Outcome.IGNORED);
        }
        limiter.calibrate(anthropic(50L, 49L, null, null, null, null, this.clock.instant()));
        assertThat(limiter.state().available().requests()).isEqualTo(10);
    }

    @Test
    void combinedTokensLimitConstrainsInputPlusOutputWhenNoSeparateLimitsAreReported() throws Exception {
        ModelLimiter limiter = limiter(limits(500L, null, null));
        limiter.calibrate(new RateLimitSnapshot(500L, 499L, null, null, null, null, null, null, null, 10_000L, 9_123L,
                null, this.clock.instant()));
        assertThat(limiter.state().tokensPerMinute()).isEqualTo(10_000);
        assertThat(limiter.state().available().tokens()).isEqualTo(9_123);
        limiter.acquire(request(3_000, 2_000)).settle(3_000, 500);
        assertThat(limiter.state().available().tokens()).isEqualTo(5_623);
        assertThatExceptionOfType(DemandExceedsLimitException.class)
            .isThrownBy(() -> limiter.acquire(request(6_000, 5_000)))
            .satisfies((ex) -> assertThat(ex.getDimension()).isEqualTo(Dimension.TOKENS));
    }

    @Test
    void providerLimitsAboveTheBoundOfConfiguredLimitsAreTakenAsNotReported() throws Exception {
        ModelLimiter limiter = limiter(limits(500L, null, 8_000L));
        long huge = Long.MAX_VALUE - 1;
        limiter
            .calibrate(anthropic(500L, 499L, huge, huge, ModelLimits.MAX_PER_MINUTE + 1, huge, this.clock.instant()));
        assertThat(limiter.state().effectiveLimits()).isEqualTo(limits(500L, null, 8_000L));
        assertThat(limiter.state().available().outputTokens()).isEqualTo(8_000);
        limiter.calibrate(anthropic(500L, 498L, ModelLimits.MAX_PER_MINUTE, ModelLimits.MAX_PER_MINUTE, null, null,
                this.clock.instant()));
        assertThat(limiter.state().effectiveLimits()).isEqualTo(limits(500L, ModelLimits.MAX_PER_MINUTE, 8_000L));
        limiter.acquire(request(1_000_000, 1_000)).settle(1_000_000, 1_000);
        ModelLimiter largest = limiter(new ModelLimits(ModelLimits.MAX_PER_MINUTE, ModelLimits.MAX_PER_MINUTE,
                ModelLimits.MAX_PER_MINUTE, null));
        largest.acquire(request(1_000_000, 1_000)).settle(1_000_000, 1_000);
        assertThatIllegalArgumentException().isThrownBy(() -> limits(ModelLimits.MAX_PER_MINUTE + 1, null, null))
            .withMessage("requestsPerMinute must be at most 10000000000, was 10000000001");
    }

    @Test
    void combinedTokensAreIgnoredWhenSeparateInputAndOutputLimitsAreReported() throws Exception {
        ModelLimiter limiter = limiter(limits(null, 30_000L, 8_000L));
        limiter.calibrate(new RateLimitSnapshot(null, null, null, 30_000L, 30_000L, null, 8_000L, 8_000L, null, 8_000L,
                8_000L, null, this.clock.instant()));
        assertThat(limiter.state().available().tokens()).isNull();
        limiter.acquire(request(20_000, 1_000));
    }

    @Test
    void limitChangeTakesEffectForTheNextAdmissionAndForgetsServerLimits() throws Exception {
        ModelLimiter limiter = limiter(limits(50L, 30_000L, null));
        limiter.calibrate(anthropic(40L, null, 20_000L, null, null, null, this.clock.instant()));
        limiter.updateLimits(limits(100L, 60_000L, 1_000L));
        assertThat(limiter.state().effectiveLimits()).isEqualTo(limits(100L, 60_000L, 1_000L));
        limiter.acquire(request(25_000, 1_000));
        assertThatExceptionOfType(DemandExceedsLimitException.class)
            .isThrownBy(() -> limiter.acquire(request(0, 2_000)));
        limiter.updateLimits(limits(100L, null, null));
        assertThat(limiter.state().available().outputTokens()).isNull();
        limiter.acquire(request(0, 2_000));
    }

    @Test
    void pauseHoldsCallsUntilTheServersTime() throws Exception {
        ModelLimiter limiter = limiter(limits(50L, null, null));
        Instant start = this.clock.instant();
        limiter.pause(Duration.ofSeconds(7));
        assertThat(limiter.state().pausedUntil()).isEqualTo(start.plusSeconds(7));
        limiter.acquire(request(0, 0));
        assertThat(elapsedSince(start)).isEqualTo(Duration.ofSeconds(7));
        assertThat(limiter.state().pausedUntil()).isNull();
    }

    @Test
    void shorterPauseDoesNotCutALongerOneShort() {
        ModelLimiter limiter = limiter(limits(50L, null, null));
        Instant start = this.clock.instant();
        limiter.pause(Duration.ofSeconds(20));
        limiter.pause(Duration.ofSeconds(5));
        assertThat(limiter.state().pausedUntil()).isEqualTo(start.plusSeconds(20));
    }

    @Test
    void pauseLongerThanMaxWaitFailsAtOnce() {
        ModelLimiter limiter = limiter(limits(50L, null, null));
        Instant start = this.clock.instant();
        limiter.pause(Duration.ofSeconds(90));
        assertThatExceptionOfType(AdmissionTimeoutException.class).isThrownBy(() -> limiter.acquire(request(0, 0)))
            .satisfies((ex) -> assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(90)));
        assertThat(this.clock.instant()).isEqualTo(start);
        assertThat(limiter.state().queued().total()).isZero();
    }

    @Test
    void fullQueueRejectsAtOnce() throws Exception {
        this.capacity = 0;
        ModelLimiter limiter = limiter(limits(1L, null, null));
        limiter.acquire(request(0, 0));
        Instant start = this.clock.instant();
        assertThatExceptionOfType(QueueFullException.class).isThrownBy(() -> limiter.acquire(request(0, 0)));
        assertThat(this.clock.instant()).isEqualTo(start);
        assertThat(limiter.state().queued().total()).isZero();
    }

    @Test
    void tenantBucketsApplyTogetherWithTheModels() throws Exception {
        this.tenants = TenantLimits.resolver(new TenantLimits(null, 1_000L, null),
                Map.of("acme", new TenantLimits(null, 5_000L, null)));
        ModelLimiter limiter = limiter(limits(null, 30_000L, null));
        limiter.acquire(new AdmissionRequest(Priority.NORMAL, "acme", 4_000, 0, null));
        limiter.acquire(new AdmissionRequest(Priority.NORMAL, "other", 1_000, 0, null));
        assertThat(limiter.state().available().inputTokens()).isEqualTo(25_000);
        assertThatExceptionOfType(TenantQuotaExceededException.class).isThrownBy(
                () -> limiter.acquire(new AdmissionRequest(Priority.NORMAL, "other", 500, 0, Duration.ofSeconds(10))))
            .satisfies((ex) -> assertThat(ex.getRetryAfter().toMillis()).isCloseTo(20_000, within(50L)));
        assertThat(limiter.state().queued().total()).isZero();
        limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 500, 0, Duration.ZERO));
    }

    @Test
    void requestLargerThanTheTenantsBucketFailsAtOnce() {
        this.tenants = (tenant) -> new TenantLimits(10L, 1_000L, 1_000L);
        ModelLimiter limiter = limiter(limits(null, 30_000L, null));
        assertThatExceptionOfType(TenantQuotaExceededException.class)
            .isThrownBy(() -> limiter.acquire(new AdmissionRequest(Priority.NORMAL, "acme", 2_000, 0, null)))
            .satisfies((ex) -> assertThat(ex.getRetryAfter()).isNull());
    }

    @Test
    void droppedReleasesShrinkTheConcurrencyLimitAndSuccessesGrowIt() throws Exception {
        ModelLimiter limiter = limiter(new ModelLimits(null, null, null, 16));
        assertThat(limiter.state().concurrencyLimit()).isEqualTo(16);
        limiter.acquire(request(0, 0)).release(Permit.Outcome.DROPPED);
        int shrunk = limiter.state().concurrencyLimit();
        assertThat(shrunk).isLessThan(16);
        limiter.acquire(request(0, 0)).release(Permit.Outcome.IGNORED);
        assertThat(limiter.state().concurrencyLimit()).isEqualTo(shrunk);
        Permit[] permits = new Permit[shrunk];
        for (int i = 0; i < shrunk; i++) {
            permits[i] = limiter.acquire(request(0, 0));
        }
        // AIMD grows only when the limit was in use: the last one admitted saw every slot
        // taken
        permits[shrunk - 1].release(Permit.Outcome.SUCCESS);
        assertThat(limiter.state().concurrencyLimit()).isEqualTo(shrunk + 1);
    }

    @Test
    void concurrencyLimitStartsAtFiftyAtMost() {
        assertThat(limiter(new ModelLimits(null, null, null, 100)).state().concurrencyLimit()).isEqualTo(50);
        assertThat(limiter(new ModelLimits(null, null, null, 5)).state().concurrencyLimit()).isEqualTo(5);
        // every model has an adaptive limit, max-concurrency or not
        assertThat(limiter(ModelLimits.UNLIMITED).state().concurrencyLimit()).isEqualTo(50);
    }

    @Test
    void callWaitsForAConcurrencySlotUntilMaxWait() throws Exception {
        ModelLimiter limiter = limiter(new ModelLimits(null, null, null, 1));
        Permit permit = limiter.acquire(request(0, 0));
        assertThatExceptionOfType(AdmissionTimeoutException.class)
            .isThrownBy(() -> limiter.acquire(request(0, 0, Duration.ofSeconds(3))));
        permit.release(Permit.Outcome.SUCCESS);
        permit.release(Permit.Outcome.SUCCESS);
        assertThat(limiter.state().inFlight()).isZero();
        limiter.acquire(request(0, 0, Duration.ZERO));
    }

    @Test
    void interruptedCallerLeavesWithTheInterruptFlagSet() {
        ModelLimiter limiter = limiter(limits(1L, null, null));
        Thread.currentThread().interrupt();
        try {
            assertThatExceptionOfType(InterruptedException.class).isThrownBy(() -> limiter.acquire(request(0, 0)));
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        }
        finally {
            Thread.interrupted();
        }
        assertThat(limiter.state().available().requests()).isEqualTo(1);
        assertThat(limiter.state().queued().total()).isZero();
    }

    @Test
    void estimatedWaitCountsBucketsPauseAndNeverFittingRequests() throws Exception {
        ModelLimiter limiter = limiter(limits(60L, null, 600L));
        assertThat(limiter.estimatedWait(request(0, 300))).isZero();
        limiter.acquire(request(0, 600));
        assertThat(limiter.estimatedWait(request(0, 300)).toMillis()).isCloseTo(30_000, within(10L));
        limiter.pause(Duration.ofSeconds(45));
        assertThat(limiter.estimatedWait(request(0, 300))).isEqualTo(Duration.ofSeconds(45));
        assertThat(limiter.estimatedWait(request(0, 601))).isNull();
        assertThat(limiter.state().queued().total()).isZero();
    }

}
