package io.github.llmthrottle.limit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.QueueFullException;
import io.github.llmthrottle.TenantQuotaExceededException;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.time.FakeClock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests of {@link ModelLimiter}'s queue with real waiting threads: the buckets and
 * deadlines run on a fake clock that only the test moves, so outcomes do not depend on
 * real timing; real time only bounds how long the test waits for threads to notice
 * (generously).
 */
class ModelLimiterQueueTests {

    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private final FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z");

    private final LocalBucketStore store = new LocalBucketStore(this.clock);

    private final List<AsyncAcquire> started = new ArrayList<>();

    private Function<String, @Nullable TenantLimits> tenants = (tenant) -> null;

    private int capacity = 10;

    @AfterEach
    void stopThreads() {
        this.started.forEach((acquire) -> acquire.thread.interrupt());
    }

    private ModelLimiter limiter(ModelLimits limits) {
        return new ModelLimiter("anthropic", "opus", limits, this.capacity, Duration.ofMinutes(10), this.tenants,
                this.store, this.clock.pollingWaits(), LimiterOptions.WITHOUT_SLOW_START);
    }

    private AsyncAcquire enqueue(ModelLimiter limiter, Priority priority, @Nullable String tenant, long input) {
        int before = limiter.state().queued().total();
        AsyncAcquire acquire = AsyncAcquire.start(limiter, new AdmissionRequest(priority, tenant, input, 0, null));
        this.started.add(acquire);
        await().pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(2))
            .atMost(PATIENCE)
            .until(() -> acquire.result.isDone() || limiter.state().queued().total() > before);
        return acquire;
    }

    private AsyncAcquire enqueue(ModelLimiter limiter, Priority priority) {
        return enqueue(limiter, priority, null, 0);
    }

    private void awaitAdmitted(AsyncAcquire... acquires) {
        await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2)).atMost(PATIENCE).until(() -> {
            for (AsyncAcquire acquire : acquires) {
                if (!acquire.admitted()) {
                    return false;
                }
            }
            return true;
        });
    }

    private static ModelLimits rpm(long rpm) {
        return new ModelLimits(rpm, null, null, null);
    }

    @Test
    void aCallTheBucketsCanTakeOnlyAfterItsDeadlineHoldsNobodyBack() throws Exception {
        ModelLimiter limiter = limiter(new ModelLimits(null, 600L, null, null));
        // in flight: it may give tokens back, so the large call keeps waiting for that
        Permit inFlight = limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 600, 0, null));
        AsyncAcquire large = AsyncAcquire.start(limiter,
                new AdmissionRequest(Priority.NORMAL, null, 600, 0, Duration.ofSeconds(30)));
        this.started.add(large);
        await().atMost(PATIENCE).until(() -> limiter.state().queued().total() == 1);
        AsyncAcquire small = enqueue(limiter, Priority.NORMAL, null, 50);
        // 10 tokens a second: 60 s for the large call, 5 s for the small one behind it
        this.clock.advance(Duration.ofSeconds(6));
        awaitAdmitted(small);
        assertThat(large.result).isNotDone();
        this.clock.advance(Duration.ofSeconds(25));
        assertThat(large.failure()).isInstanceOf(AdmissionTimeoutException.class);
        inFlight.release(Permit.Outcome.SUCCESS);
        small.permit().release(Permit.Outcome.SUCCESS);
        assertThat(limiter.state().inFlight()).isZero();
        assertThat(limiter.state().queued().total()).isZero();
    }

    @Test
    void withNothingInFlightACallThatCannotFitBeforeItsDeadlineFailsAtOnce() throws Exception {
        ModelLimiter limiter = limiter(new ModelLimits(null, 600L, null, null));
        limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 600, 0, null)).release(Permit.Outcome.SUCCESS);
        AsyncAcquire large = AsyncAcquire.start(limiter,
                new AdmissionRequest(Priority.NORMAL, null, 600, 0, Duration.ofSeconds(30)));
        this.started.add(large);
        // no tokens can come back: only time fills the bucket, in 60 s, not in 30
        assertThat(large.failure()).isInstanceOf(AdmissionTimeoutException.class)
            .hasMessageContaining("max-wait 30s")
            .satisfies((ex) -> assertThat(((AdmissionTimeoutException) ex).getRetryAfter())
                .isEqualTo(Duration.ofSeconds(60)));
        assertThat(limiter.state().queued().total()).isZero();
        // one that fits in time still waits
        AsyncAcquire fits = AsyncAcquire.start(limiter,
                new AdmissionRequest(Priority.NORMAL, null, 200, 0, Duration.ofSeconds(30)));
        this.started.add(fits);
        await().atMost(PATIENCE).until(() -> limiter.state().queued().total() == 1);
        this.clock.advance(Duration.ofSeconds(20));
        awaitAdmitted(fits);
    }

    @Test
    void higherPrioritiesGoFirstAndEachPriorityIsFifo() throws Exception {
        ModelLimiter limiter = limiter(rpm(1));
        limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 0, 0, null));
        AsyncAcquire batch = enqueue(limiter, Priority.BATCH);
        AsyncAcquire normal1 = enqueue(limiter, Priority.NORMAL);
        AsyncAcquire normal2 = enqueue(limiter, Priority.NORMAL);
        AsyncAcquire realtime = enqueue(limiter, Priority.REALTIME);
        assertThat(limiter.state().queued()).isEqualTo(new LimiterState.Queued(1, 2, 1));
        List<AsyncAcquire> order = new ArrayList<>();
        for (AsyncAcquire expected : List.of(realtime, normal1, normal2, batch)) {
            this.clock.advance(Duration.ofSeconds(60));
            awaitAdmitted(expected);
            order.add(expected);
            assertThat(List.of(realtime, normal1, normal2, batch).stream().filter(AsyncAcquire::admitted))
                .containsExactlyInAnyOrderElementsOf(order);
        }
        assertThat(limiter.state().queued().total()).isZero();
    }

    @Test
    void batchCallThatWaitedLongEnoughGoesAheadOfNewerRealtimeCalls() throws Exception {
        ModelLimiter limiter = limiter(new ModelLimits(null, null, null, 1));
        Permit permit = limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 0, 0, null));
        AsyncAcquire batch = enqueue(limiter, Priority.BATCH);
        this.clock.advance(ModelLimiter.PRIORITY_STEP.multipliedBy(2).plusSeconds(1));
        AsyncAcquire realtime = enqueue(limiter, Priority.REALTIME);
        permit.release(Permit.Outcome.IGNORED);
        await().pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(2))
            .atMost(PATIENCE)
            .until(() -> batch.admitted() || realtime.admitted());
        assertThat(batch.admitted()).isTrue();
        assertThat(realtime.admitted()).isFalse();
    }

    @Test
    void realtimeCallGoesAheadOfABatchCallThatHasNotWaitedLong() throws Exception {
        ModelLimiter limiter = limiter(rpm(1));
        limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 0, 0, null));
        AsyncAcquire batch = enqueue(limiter, Priority.BATCH);
        this.clock.advance(Duration.ofSeconds(30));
        AsyncAcquire realtime = enqueue(limiter, Priority.REALTIME);
        this.clock.advance(Duration.ofSeconds(30));
        awaitAdmitted(realtime);
        assertThat(batch.admitted()).isFalse();
    }

    @Test
    void fullQueueRejectsTheNextCallAtOnce() throws Exception {
        this.capacity = 2;
        ModelLimiter limiter = limiter(rpm(1));
        limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 0, 0, null));
        enqueue(limiter, Priority.BATCH);
        enqueue(limiter, Priority.BATCH);
        AsyncAcquire rejected = enqueue(limiter, Priority.REALTIME);
        assertThat(rejected.failure()).isInstanceOf(QueueFullException.class);
        assertThat(limiter.state().queued().total()).isEqualTo(2);
    }

    @Test
    void interruptedWaiterLeavesTheQueueWithItsInterruptFlagSet() throws Exception {
        ModelLimiter limiter = limiter(rpm(1));
        limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 0, 0, null));
        AsyncAcquire first = enqueue(limiter, Priority.NORMAL);
        AsyncAcquire second = enqueue(limiter, Priority.NORMAL);
        first.thread.interrupt();
        assertThat(first.failure()).isInstanceOf(InterruptedException.class);
        assertThat(first.interruptFlagAfterwards).isTrue();
        assertThat(limiter.state().queued().total()).isEqualTo(1);
        this.clock.advance(Duration.ofSeconds(60));
        awaitAdmitted(second);
        assertThat(limiter.state().inFlight()).isEqualTo(2);
    }

    @Test
    void waiterTimesOutAndLeavesTheQueue() throws Exception {
        ModelLimiter limiter = limiter(rpm(1));
        limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 0, 0, null));
        AsyncAcquire waiting = AsyncAcquire.start(limiter,
                new AdmissionRequest(Priority.NORMAL, null, 0, 0, Duration.ofSeconds(20)));
        this.started.add(waiting);
        await().pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(2))
            .atMost(PATIENCE)
            .until(() -> limiter.state().queued().total() == 1);
        this.clock.advance(Duration.ofSeconds(20));
        assertThat(waiting.failure()).isInstanceOf(AdmissionTimeoutException.class);
        assertThat(limiter.state().queued().total()).isZero();
        assertThat(((AdmissionTimeoutException) waiting.failure()).getRetryAfter().toSeconds()).isEqualTo(40);
    }

    @Test
    void otherTenantsGoAheadOfACallBlockedOnlyByItsOwnTenant() throws Exception {
        this.tenants = (tenant) -> "greedy".equals(tenant) ? new TenantLimits(null, 1_000L, null) : null;
        ModelLimiter limiter = limiter(new ModelLimits(null, 100_000L, null, null));
        limiter.acquire(new AdmissionRequest(Priority.BATCH, "greedy", 1_000, 0, null));
        AsyncAcquire greedyBatch = enqueue(limiter, Priority.BATCH, "greedy", 1_000);
        AsyncAcquire greedyRealtime = enqueue(limiter, Priority.REALTIME, "greedy", 10);
        AsyncAcquire modest = enqueue(limiter, Priority.BATCH, "modest", 5_000);
        AsyncAcquire anonymous = enqueue(limiter, Priority.BATCH, null, 5_000);
        awaitAdmitted(modest, anonymous);
        assertThat(greedyBatch.admitted()).isFalse();
        assertThat(greedyRealtime.admitted()).isFalse();
        this.clock.advance(Duration.ofSeconds(60));
        awaitAdmitted(greedyRealtime);
        this.clock.advance(Duration.ofSeconds(60));
        awaitAdmitted(greedyBatch);
    }

    @Test
    void aTenantHeldByItsOwnQuotaHoldsAtMostHalfOfTheQueueAndOthersStillGetIn() throws Exception {
        this.capacity = 4;
        this.tenants = (tenant) -> "greedy".equals(tenant) ? new TenantLimits(1L, null, null) : null;
        ModelLimiter limiter = limiter(rpm(100));
        limiter.acquire(new AdmissionRequest(Priority.BATCH, "greedy", 0, 0, null));
        enqueue(limiter, Priority.BATCH, "greedy", 0);
        enqueue(limiter, Priority.BATCH, "greedy", 0);
        AsyncAcquire third = enqueue(limiter, Priority.BATCH, "greedy", 0);
        await().atMost(PATIENCE).until(() -> third.result.isDone());
        assertThat(third.failure()).isInstanceOf(QueueFullException.class)
            .hasMessageContaining("Tenant 'greedy'")
            .hasMessageContaining("2 of 4 places");
        assertThat(limiter.state().queued().total()).isEqualTo(2);
        AsyncAcquire modest = enqueue(limiter, Priority.BATCH, "modest", 0);
        awaitAdmitted(modest);
    }

    @Test
    void callHeldByItsTenantFailsWithTenantQuotaExceeded() throws Exception {
        this.tenants = (tenant) -> new TenantLimits(1L, null, null);
        ModelLimiter limiter = limiter(rpm(100));
        limiter.acquire(new AdmissionRequest(Priority.NORMAL, "acme", 0, 0, null));
        AsyncAcquire waiting = AsyncAcquire.start(limiter,
                new AdmissionRequest(Priority.NORMAL, "acme", 0, 0, Duration.ofSeconds(5)));
        this.started.add(waiting);
        await().pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(2))
            .atMost(PATIENCE)
            .until(() -> limiter.state().queued().total() == 1);
        this.clock.advance(Duration.ofSeconds(5));
        assertThat(waiting.failure()).isInstanceOf(TenantQuotaExceededException.class);
    }

    @Test
    void callsWaitingForAConcurrencySlotAreQueuedAndAReleaseAdmitsTheHead() throws Exception {
        ModelLimiter limiter = limiter(new ModelLimits(null, null, null, 1));
        Permit permit = limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 0, 0, null));
        AsyncAcquire batch = enqueue(limiter, Priority.BATCH);
        AsyncAcquire realtime = enqueue(limiter, Priority.REALTIME);
        assertThat(limiter.state().queued().total()).isEqualTo(2);
        permit.release(Permit.Outcome.SUCCESS);
        awaitAdmitted(realtime);
        assertThat(batch.admitted()).isFalse();
        realtime.permit().release(Permit.Outcome.IGNORED);
        awaitAdmitted(batch);
    }

    @Test
    void waitersAreReleasedOneAtATimeWhenAPauseEnds() throws Exception {
        ModelLimiter limiter = limiter(rpm(600));
        limiter.pause(Duration.ofSeconds(10));
        AsyncAcquire first = enqueue(limiter, Priority.NORMAL);
        AsyncAcquire second = enqueue(limiter, Priority.NORMAL);
        AsyncAcquire third = enqueue(limiter, Priority.NORMAL);
        this.clock.advance(Duration.ofSeconds(10));
        awaitAdmitted(first);
        assertThat(limiter.state().queued().total()).isEqualTo(2);
        // 60 s / 600 requests per minute
        this.clock.advance(Duration.ofMillis(100));
        awaitAdmitted(second);
        assertThat(third.admitted()).isFalse();
        this.clock.advance(Duration.ofMillis(100));
        awaitAdmitted(third);
    }

    @Test
    void refundOnSettleWakesAWaitingCall() throws Exception {
        ModelLimiter limiter = limiter(new ModelLimits(null, null, 1_000L, null));
        Permit permit = limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 0, 1_000, null));
        AsyncAcquire waiting = AsyncAcquire.start(limiter, new AdmissionRequest(Priority.NORMAL, null, 0, 500, null));
        this.started.add(waiting);
        await().pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(2))
            .atMost(PATIENCE)
            .until(() -> limiter.state().queued().total() == 1);
        permit.settle(0, 200);
        awaitAdmitted(waiting);
    }

    @Test
    void estimatedWaitCountsTheCallsQueuedAhead() throws Exception {
        ModelLimiter limiter = limiter(rpm(1));
        limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 0, 0, null));
        enqueue(limiter, Priority.NORMAL);
        assertThat(limiter.estimatedWait(new AdmissionRequest(Priority.NORMAL, null, 0, 0, null)))
            .isEqualTo(Duration.ofSeconds(120));
        assertThat(limiter.estimatedWait(new AdmissionRequest(Priority.REALTIME, null, 0, 0, null)))
            .isEqualTo(Duration.ofSeconds(60));
    }

}
