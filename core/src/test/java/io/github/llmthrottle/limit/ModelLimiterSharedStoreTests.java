package io.github.llmthrottle.limit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.store.SharedBucketStore;
import io.github.llmthrottle.store.TokenBucket;
import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link ModelLimiter} on a {@link SharedBucketStore} whose answers the test gives, one
 * take at a time, so that a give-back can be made to land exactly while a take is out.
 * The clock is frozen: only a change of state, never time, lets a held call go.
 */
class ModelLimiterSharedStoreTests {

    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private final FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z").pollingWaits();

    private final AnsweredStore store = new AnsweredStore(this.clock);

    private final List<AsyncAcquire> started = new ArrayList<>();

    /** 1,000 input tokens a minute: a call of 600 leaves too few for another. */
    private final ModelLimiter limiter = new ModelLimiter("anthropic", "opus",
            new ModelLimits(null, 1_000L, null, null), 10, Duration.ofMinutes(5), (tenant) -> null, this.store,
            this.clock, LimiterOptions.WITHOUT_SLOW_START);

    @AfterEach
    void stopThreads() {
        this.started.forEach((acquire) -> acquire.thread.interrupt());
    }

    @Test
    void aGiveBackAppliedWhileATakeIsOutMakesTheCallHeldBackByItsAnswerAskAgain() throws Exception {
        Permit permit = this.limiter.acquire(admitted(600));
        AsyncAcquire second = start(600);
        PendingTake secondTake = this.store.nextTake();
        // the first call used only 100 of its 600 tokens: 500 are given back while the
        // second call's take is out, and the store answered it before they arrived
        permit.settle(100, 0);
        assertThat(this.store.givenBack).isEqualTo(1);
        secondTake.answerHeldBack(Duration.ofSeconds(30));
        // nothing but the give-back can make the second call ask again: the clock stands
        PendingTake again = this.store.takes.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(again).as("the second call's take after the give-back").isNotNull();
        again.answerTaken();
        assertThat(second.permit()).isNotNull();
        permit.release(Permit.Outcome.SUCCESS);
    }

    @Test
    void aCallHeldBackByAnAnswerGivenAfterTheLastGiveBackWaitsForTheStoresTime() throws Exception {
        Permit permit = this.limiter.acquire(admitted(600));
        AsyncAcquire second = start(600);
        this.store.nextTake().answerHeldBack(Duration.ofSeconds(30));
        // nothing was given back since: it asks again only when the store's time (at
        // most the recheck) has passed
        assertThat(this.store.takes.poll(300, TimeUnit.MILLISECONDS)).isNull();
        this.clock.advance(Duration.ofNanos(AdmissionGate.SHARED_RECHECK_NANOS));
        this.store.nextTake().answerTaken();
        assertThat(second.permit()).isNotNull();
        permit.release(Permit.Outcome.SUCCESS);
    }

    @Test
    void aCallWithoutAThreadTakesItsBucketsOnTheTimeSourcesThread() throws Exception {
        Permit permit = this.limiter.acquire(admitted(300));
        CompletableFuture<Permit> admission = this.limiter.acquireAsync(admitted(300));
        // the take is the time source's task: on this fake clock, it runs when the clock
        // moves
        assertThat(admission).isNotDone();
        this.clock.advance(Duration.ZERO);
        assertThat(admission).isCompleted();
        admission.join().release(Permit.Outcome.SUCCESS);
        permit.release(Permit.Outcome.SUCCESS);
        assertThat(this.limiter.state().inFlight()).isZero();
    }

    @Test
    void aCallCancelledWhileItsTakeIsOutLeavesWhenTheStoreAnswers() throws Exception {
        Permit permit = this.limiter.acquire(admitted(300));
        CompletableFuture<Permit> admission = this.limiter.acquireAsync(request(300));
        Thread timer = new Thread(() -> this.clock.advance(Duration.ZERO), "timer");
        timer.start();
        PendingTake take = this.store.nextTake();
        assertThat(admission.cancel(false)).isTrue();
        take.answerTaken();
        timer.join(PATIENCE.toMillis());
        assertThat(timer.isAlive()).isFalse();
        // what the store took went back with the permit: only the first call is in flight
        assertThat(this.limiter.state().inFlight()).isOne();
        assertThat(this.limiter.state().queued().total()).isZero();
        permit.release(Permit.Outcome.SUCCESS);
        assertThat(this.limiter.state().inFlight()).isZero();
    }

    @Test
    void aCallOfAModelWithoutLimitsIsHeldByThePauseTheStoreAnswers() throws Exception {
        ModelLimiter unlimited = unlimited();
        AsyncAcquire call = AsyncAcquire.start(unlimited, request(300));
        this.started.add(call);
        Duration paused = Duration.ofSeconds(5);
        this.store.nextTake().answer.complete(new SharedBucketStore.Take(null, paused.toNanos(), 0, paused.toNanos()));
        await().atMost(PATIENCE).until(() -> unlimited.state().pausedUntil() != null);
        assertThat(unlimited.state().pausedUntil()).isEqualTo(this.clock.instant().plus(paused));
        assertThat(this.store.takes.poll(300, TimeUnit.MILLISECONDS)).as("asked again during the pause").isNull();
        this.clock.advance(paused);
        this.store.nextTake().answer.complete(SharedBucketStore.Take.withoutBuckets());
        call.permit().release(Permit.Outcome.SUCCESS);
        assertThat(unlimited.state().inFlight()).isZero();
    }

    @Test
    void aCallOfAModelWithoutLimitsCancelledWhileItAsksTheStoreLeavesNothingBehind() throws Exception {
        ModelLimiter unlimited = unlimited();
        CompletableFuture<Permit> admission = unlimited.acquireAsync(request(300));
        Thread timer = new Thread(() -> this.clock.advance(Duration.ZERO), "timer");
        timer.start();
        PendingTake take = this.store.nextTake();
        assertThat(admission.cancel(false)).isTrue();
        take.answer.complete(SharedBucketStore.Take.withoutBuckets());
        timer.join(PATIENCE.toMillis());
        assertThat(timer.isAlive()).isFalse();
        assertThat(unlimited.state().inFlight()).isZero();
        assertThat(unlimited.state().queued().total()).isZero();
    }

    /** A model without any limit on the same store. */
    private ModelLimiter unlimited() {
        return new ModelLimiter("anthropic", "haiku", new ModelLimits(null, null, null, null), 10,
                Duration.ofMinutes(5), (tenant) -> null, this.store, this.clock, LimiterOptions.WITHOUT_SLOW_START);
    }

    /** A call that waits for admission on a thread of its own. */
    private AsyncAcquire start(long inputTokens) {
        AsyncAcquire acquire = AsyncAcquire.start(this.limiter, request(inputTokens));
        this.started.add(acquire);
        return acquire;
    }

    /** The request of a call whose take the store answers at once: taken. */
    private AdmissionRequest admitted(long inputTokens) {
        this.store.answerNext = true;
        return request(inputTokens);
    }

    private static AdmissionRequest request(long inputTokens) {
        return new AdmissionRequest(Priority.NORMAL, null, inputTokens, 0, Duration.ofMinutes(5));
    }

    /**
     * One take sent to the store: the calling thread waits until the test answers it.
     */
    static final class PendingTake {

        final CompletableFuture<SharedBucketStore.Take> answer = new CompletableFuture<>();

        private final AnsweredStore store;

        private PendingTake(AnsweredStore store) {
            this.store = store;
        }

        void answerTaken() {
            this.answer.complete(new SharedBucketStore.Take(this.store::adjust, 0, 0));
        }

        void answerHeldBack(Duration modelWait) {
            this.answer.complete(new SharedBucketStore.Take(null, modelWait.toNanos(), 0));
        }

    }

    /**
     * A shared store whose takes wait for the test's answer; its handles are local
     * buckets, and a settlement that gives back applies at once and says so.
     */
    static final class AnsweredStore implements SharedBucketStore {

        final BlockingQueue<PendingTake> takes = new LinkedBlockingQueue<>();

        private final LocalBucketStore local;

        volatile int givenBack;

        /**
         * Whether to answer the next take at once, taken, rather than wait for the test.
         */
        volatile boolean answerNext;

        AnsweredStore(FakeClock clock) {
            this.local = new LocalBucketStore(clock);
        }

        @Override
        public TokenBucket bucket(String key, long limitPerMinute) {
            return this.local.bucket(key, limitPerMinute);
        }

        @Override
        public SharedBucketStore.Take take(List<TokenBucket> buckets, long[] costs, int modelBuckets,
                Runnable givenBack) throws InterruptedException {
            return pending();
        }

        @Override
        public SharedBucketStore.Take takeNone(String modelKey) throws InterruptedException {
            return pending();
        }

        private SharedBucketStore.Take pending() throws InterruptedException {
            PendingTake take = new PendingTake(this);
            if (this.answerNext) {
                this.answerNext = false;
                take.answerTaken();
            }
            else {
                this.takes.add(take);
            }
            try {
                return take.answer.get();
            }
            catch (ExecutionException ex) {
                throw new IllegalStateException(ex);
            }
        }

        PendingTake nextTake() throws InterruptedException {
            PendingTake take = this.takes.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(take).as("a take sent to the store").isNotNull();
            return take;
        }

        private void adjust(long[] amounts, Runnable givenBack) {
            for (long amount : amounts) {
                if (amount < 0) {
                    this.givenBack++;
                    givenBack.run();
                    return;
                }
            }
        }

    }

}
