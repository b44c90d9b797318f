package io.github.llmthrottle.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.store.WaitingDemand;
import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Priority across instances through {@link RedisBucketStore}: two limiter registries,
 * each with its own store and client, stand for two instances sharing a limit of 60
 * requests a minute (one a second); a fake clock stands in for the server's time and the
 * instances'. Calls without a thread ({@code acquireAsync}) take their buckets in tasks
 * that the clock runs as the test moves it, so every take happens at a known time.
 */
class SharedPriorityTests {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final FleetOnRedis fleet = new FleetOnRedis();

    private final FakeClock clock = this.fleet.clock;

    @AfterEach
    void close() throws Exception {
        this.fleet.close();
    }

    @Test
    void realtimeWaitingOnOneInstanceIsAdmittedBeforeBatchWaitingOnAnother() throws InterruptedException {
        ModelLimiter batch = limiter();
        ModelLimiter realtime = limiter();
        drain(batch);
        CompletableFuture<Permit> batchCall = batch.acquireAsync(request(Priority.BATCH, WAIT));
        this.clock.advance(Duration.ZERO);
        CompletableFuture<Permit> realtimeCall = realtime.acquireAsync(request(Priority.REALTIME, WAIT));
        this.clock.advance(Duration.ZERO);
        assertThat(batchCall).isNotDone();
        assertThat(realtimeCall).isNotDone();
        // one request back in the bucket: the BATCH call asks first (it waited longer)
        // but leaves it to the REALTIME call the other instance reported
        this.clock.advance(Duration.ofSeconds(1));
        assertThat(realtimeCall).isCompleted();
        assertThat(batchCall).isNotDone();
        realtimeCall.join().release(Permit.Outcome.IGNORED);
        // no more REALTIME demand: the BATCH call goes once what the REALTIME instance
        // took lately has faded from the reserve
        this.clock.advance(Duration.ofSeconds(3));
        assertThat(batchCall).isCompleted();
        batchCall.join().release(Permit.Outcome.IGNORED);
    }

    @Test
    void batchGoesAsSoonAsTheBucketHoldsItWhenNoHigherDemandIsReported() throws InterruptedException {
        ModelLimiter batch = limiter();
        limiter();
        drain(batch);
        CompletableFuture<Permit> batchCall = batch.acquireAsync(request(Priority.BATCH, WAIT));
        this.clock.advance(Duration.ofMillis(999));
        assertThat(batchCall).isNotDone();
        this.clock.advance(Duration.ofMillis(1));
        assertThat(batchCall).isCompleted();
        batchCall.join().release(Permit.Outcome.IGNORED);
    }

    @Test
    void demandReportedByCallsThatLeftExpires() throws InterruptedException {
        ModelLimiter batch = limiter();
        ModelLimiter realtime = limiter();
        drain(batch);
        // five REALTIME calls wait half a second and give up: the first one's take
        // reported the five of them, and nobody reports again
        List<CompletableFuture<Permit>> realtimeCalls = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            realtimeCalls.add(realtime.acquireAsync(request(Priority.REALTIME, Duration.ofMillis(500))));
        }
        CompletableFuture<Permit> batchCall = batch.acquireAsync(request(Priority.BATCH, WAIT));
        this.clock.advance(Duration.ofMillis(500));
        assertThat(realtimeCalls).allSatisfy((call) -> assertThat(call).isCompletedExceptionally());
        // the bucket holds 2 requests after 2 s, well short of 1 + 5: still held back
        this.clock.advance(Duration.ofMillis(2_400));
        assertThat(batchCall).isNotDone();
        // 3 s after the report it has expired: the BATCH call goes, 3 s before the
        // bucket would hold the whole reserve
        this.clock.advance(Duration.ofMillis(1_100));
        assertThat(batchCall).isCompleted();
        batchCall.join().release(Permit.Outcome.IGNORED);
    }

    @Test
    void aReserveAboveWhatTheBucketCanHoldWaitsOnlyForAFullBucket() throws InterruptedException {
        RedisBucketStore realtime = this.fleet.store();
        RedisBucketStore other = this.fleet.store();
        // a REALTIME call takes one request and reports 1,000 more waiting: far more than
        // the 60 the bucket can hold
        assertThat(take(realtime, Priority.REALTIME, 1_000)).isTrue();
        assertThat(take(other, Priority.BATCH, 0)).as("59 held, the reserve held at 59").isFalse();
        assertThat(take(other, Priority.NORMAL, 0)).isFalse();
        assertThat(take(other, Priority.REALTIME, 0)).as("no reserve for REALTIME").isTrue();
        this.clock.advance(Duration.ofSeconds(2));
        assertThat(take(other, Priority.BATCH, 0)).as("a full bucket lets a call through").isTrue();
        assertThat(take(other, Priority.BATCH, 0)).isFalse();
    }

    private static boolean take(RedisBucketStore store, Priority priority, long realtimeWaiting)
            throws InterruptedException {
        return store.take(List.of(store.bucket("{anthropic:opus}:requests", 60)), new long[] { 1 }, 1,
                new WaitingDemand(priority, new long[] { realtimeWaiting }, new long[1]), () -> {
                })
            .taken();
    }

    /** Takes every request the shared bucket holds, as BATCH calls of {@code limiter}. */
    private void drain(ModelLimiter limiter) throws InterruptedException {
        int taken = 0;
        while (admitted(limiter)) {
            taken++;
            assertThat(taken).as("requests taken").isLessThanOrEqualTo(60);
        }
    }

    private static boolean admitted(ModelLimiter limiter) throws InterruptedException {
        try {
            limiter.acquire(request(Priority.BATCH, Duration.ZERO)).release(Permit.Outcome.IGNORED);
            return true;
        }
        catch (AdmissionTimeoutException ex) {
            return false;
        }
    }

    private static AdmissionRequest request(Priority priority, Duration maxWait) {
        return new AdmissionRequest(priority, null, 0, 0, maxWait);
    }

    private ModelLimiter limiter() {
        return this.fleet.limiter(60L);
    }

}
