package io.github.llmthrottle.limit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.TimeoutException;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.QueueFullException;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests of {@link ModelLimiter#acquireAsync}: calls that wait holding no thread, in the
 * same queue as blocking ones. Single-threaded: every timer runs on the fake clock when
 * the test moves it, and completions run on the thread that admits.
 */
class ModelLimiterAsyncTests {

    private final FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z");

    private final LocalBucketStore store = new LocalBucketStore(this.clock);

    private ModelLimiter limiter(ModelLimits limits, int capacity) {
        return new ModelLimiter("anthropic", "opus", limits, capacity, Duration.ofMinutes(10), (tenant) -> null,
                this.store, this.clock, LimiterOptions.WITHOUT_SLOW_START);
    }

    private static ModelLimits rpm(long rpm) {
        return new ModelLimits(rpm, null, null, null);
    }

    private static AdmissionRequest request(Priority priority) {
        return new AdmissionRequest(priority, null, 0, 0, null);
    }

    @Test
    void aCallTheBucketsCanTakeIsAdmittedAtOnce() {
        ModelLimiter limiter = limiter(rpm(60), 10);
        CompletableFuture<Permit> admission = limiter.acquireAsync(request(Priority.NORMAL));
        assertThat(admission).isCompleted();
        assertThat(limiter.state().inFlight()).isOne();
        assertThat(this.clock.scheduledTasks()).isZero();
    }

    @Test
    void aWaitingCallIsAdmittedWhenTheClockRefillsTheBucket() {
        ModelLimiter limiter = limiter(rpm(1), 10);
        limiter.acquireAsync(request(Priority.NORMAL)).join().release(Permit.Outcome.SUCCESS);
        CompletableFuture<Permit> waiting = limiter.acquireAsync(request(Priority.NORMAL));
        assertThat(waiting).isNotDone();
        assertThat(limiter.state().queued().total()).isOne();
        this.clock.advance(Duration.ofSeconds(59));
        assertThat(waiting).isNotDone();
        this.clock.advance(Duration.ofSeconds(1));
        assertThat(waiting).isCompleted();
        assertThat(limiter.state().queued().total()).isZero();
        // its deadline's timer is gone with it
        assertThat(this.clock.scheduledTasks()).isZero();
    }

    @Test
    void aWaitingCallFailsAtItsDeadlineAndLeavesTheQueue() {
        ModelLimiter limiter = limiter(rpm(1), 10);
        Permit inFlight = limiter.acquireAsync(request(Priority.NORMAL)).join();
        CompletableFuture<Permit> waiting = limiter
            .acquireAsync(request(Priority.NORMAL).withMaxWait(Duration.ofSeconds(30)));
        this.clock.advance(Duration.ofSeconds(30));
        assertThat(waiting).failsWithin(Duration.ZERO)
            .withThrowableOfType(ExecutionException.class)
            .havingCause()
            .isInstanceOf(AdmissionTimeoutException.class);
        assertThat(limiter.state().queued().total()).isZero();
        inFlight.release(Permit.Outcome.SUCCESS);
        assertThat(limiter.state().inFlight()).isZero();
    }

    @Test
    void aCancelledCallLeavesTheQueueAndTheNextOneGoes() {
        ModelLimiter limiter = limiter(rpm(1), 10);
        limiter.acquireAsync(request(Priority.NORMAL)).join().release(Permit.Outcome.SUCCESS);
        CompletableFuture<Permit> cancelled = limiter.acquireAsync(request(Priority.REALTIME));
        CompletableFuture<Permit> next = limiter.acquireAsync(request(Priority.NORMAL));
        assertThat(cancelled.cancel(false)).isTrue();
        assertThat(limiter.state().queued().total()).isOne();
        this.clock.advance(Duration.ofSeconds(60));
        assertThat(next).isCompleted();
        assertThat(limiter.state().inFlight()).isOne();
        assertThat(limiter.state().queued().total()).isZero();
    }

    @Test
    void aCallCompletedByItsCallerAfterItsAdmissionGivesThePermitBack() {
        ModelLimiter limiter = limiter(new ModelLimits(null, null, null, 1), 10);
        Permit first = limiter.acquireAsync(request(Priority.NORMAL)).join();
        CompletableFuture<Permit> second = limiter.acquireAsync(request(Priority.NORMAL));
        // its caller gives up first: a timeout of its own
        second.completeExceptionally(new TimeoutException("caller's timeout"));
        first.release(Permit.Outcome.SUCCESS);
        assertThat(limiter.state().inFlight()).isZero();
        assertThat(limiter.state().queued().total()).isZero();
        assertThat(limiter.acquireAsync(request(Priority.NORMAL))).isCompleted();
    }

    @Test
    void aReleasedSlotAdmitsTheNextCallOnTheReleasingThreadInPriorityOrder() {
        ModelLimiter limiter = limiter(new ModelLimits(null, null, null, 1), 10);
        Permit first = limiter.acquireAsync(request(Priority.NORMAL)).join();
        CompletableFuture<Permit> batch = limiter.acquireAsync(request(Priority.BATCH));
        CompletableFuture<Permit> realtime = limiter.acquireAsync(request(Priority.REALTIME));
        Thread[] admittedOn = new Thread[1];
        realtime.thenRun(() -> admittedOn[0] = Thread.currentThread());
        first.release(Permit.Outcome.SUCCESS);
        assertThat(realtime).isCompleted();
        assertThat(batch).isNotDone();
        assertThat(admittedOn[0]).isSameAs(Thread.currentThread());
        realtime.join().release(Permit.Outcome.SUCCESS);
        assertThat(batch).isCompleted();
    }

    @Test
    void aCallWaitingForAPauseIsAdmittedWhenThePauseEnds() {
        ModelLimiter limiter = limiter(rpm(60), 10);
        limiter.pause(Duration.ofSeconds(20));
        CompletableFuture<Permit> waiting = limiter.acquireAsync(request(Priority.NORMAL));
        this.clock.advance(Duration.ofSeconds(19));
        assertThat(waiting).isNotDone();
        this.clock.advance(Duration.ofSeconds(1));
        assertThat(waiting).isCompleted();
    }

    @Test
    void aCallThatFindsTheQueueFullFailsAtOnce() {
        ModelLimiter limiter = limiter(rpm(1), 1);
        limiter.acquireAsync(request(Priority.NORMAL)).join();
        CompletableFuture<Permit> waiting = limiter.acquireAsync(request(Priority.NORMAL));
        CompletableFuture<Permit> refused = limiter.acquireAsync(request(Priority.NORMAL));
        assertThat(waiting).isNotDone();
        assertThat(refused).failsWithin(Duration.ZERO)
            .withThrowableOfType(ExecutionException.class)
            .havingCause()
            .isInstanceOf(QueueFullException.class);
        assertThat(limiter.state().queued().total()).isOne();
    }

    @Test
    void blockingAndAsyncCallsShareOneQueue() throws InterruptedException {
        ModelLimiter limiter = limiter(rpm(1), 10);
        limiter.acquireAsync(request(Priority.NORMAL)).join().release(Permit.Outcome.SUCCESS);
        CompletableFuture<Permit> waiting = limiter.acquireAsync(request(Priority.NORMAL));
        // a blocking call behind it, on an advancing clock: its wait moves the clock and
        // the async call ahead of it goes first
        this.clock.advancingWaits();
        Permit blocking = limiter.acquire(request(Priority.NORMAL));
        assertThat(waiting).isCompleted();
        assertThat(blocking).isNotNull();
        assertThat(this.clock.nanoTime() - FakeClock.at("2026-01-01T00:00:00Z").nanoTime())
            .isGreaterThanOrEqualTo(Duration.ofSeconds(120).toNanos());
    }

    @Test
    void aLongChainOfCallsReleasingAsTheNextIsAdmittedDoesNotOverflowTheStack() {
        ModelLimiter limiter = limiter(new ModelLimits(null, null, null, 1), 100_000);
        Permit first = limiter.acquireAsync(request(Priority.NORMAL)).join();
        List<CompletableFuture<Permit>> chain = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) {
            CompletableFuture<Permit> admission = limiter.acquireAsync(request(Priority.NORMAL));
            admission.thenAccept((permit) -> permit.release(Permit.Outcome.SUCCESS));
            chain.add(admission);
        }
        first.release(Permit.Outcome.SUCCESS);
        assertThat(chain).allMatch((admission) -> admission.isDone() && !admission.isCompletedExceptionally());
        assertThat(limiter.state().inFlight()).isZero();
        assertThat(limiter.state().queued().total()).isZero();
    }

    @Test
    void manyThreadsAcquiringCancellingAndReleasingLeakNothing() throws Exception {
        ModelLimiter limiter = new ModelLimiter("anthropic", "opus", new ModelLimits(null, null, null, 3), 10_000,
                Duration.ofMinutes(10), (tenant) -> null, new LocalBucketStore(TimeSource.system()),
                TimeSource.system(), LimiterOptions.WITHOUT_SLOW_START);
        ExecutorService threads = Executors.newFixedThreadPool(4);
        List<CompletableFuture<Permit>> admissions = new CopyOnWriteArrayList<>();
        AtomicInteger cancelled = new AtomicInteger();
        try {
            for (int t = 0; t < 4; t++) {
                int thread = t;
                threads.execute(() -> {
                    for (int i = 0; i < 2_000; i++) {
                        CompletableFuture<Permit> admission = limiter.acquireAsync(request(Priority.values()[i % 3]));
                        admissions.add(admission);
                        if ((i + thread) % 5 == 0 && admission.cancel(false)) {
                            cancelled.incrementAndGet();
                        }
                        else {
                            // released on whichever thread admits it, or this one
                            admission.thenAcceptAsync((permit) -> permit.release(Permit.Outcome.SUCCESS), threads);
                        }
                    }
                });
            }
            await().atMost(Duration.ofSeconds(30))
                .until(() -> admissions.size() == 8_000 && admissions.stream().allMatch(CompletableFuture::isDone));
            await().atMost(Duration.ofSeconds(30))
                .until(() -> limiter.state().inFlight() == 0 && limiter.state().queued().total() == 0);
            assertThat(admissions).filteredOn(CompletableFuture::isCancelled).hasSize(cancelled.get());
        }
        finally {
            threads.shutdownNow();
        }
    }

}
