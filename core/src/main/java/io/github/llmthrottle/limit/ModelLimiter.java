package io.github.llmthrottle.limit;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.LongConsumer;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.QueueFullException;
import io.github.llmthrottle.limit.AdmissionQueue.Waiter;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.store.BucketKeys;
import io.github.llmthrottle.store.BucketStore;
import io.github.llmthrottle.store.SharedBucketStore;
import io.github.llmthrottle.time.Nanos;
import io.github.llmthrottle.time.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Admission control of one client and model: its buckets (requests, input tokens, output
 * tokens, and a combined token bucket when the provider only reports that), its tenants'
 * buckets, the adaptive concurrency limit, the pause after a 429, and the bounded
 * priority queue in front of them all. This class admits calls and holds the one
 * {@link ReentrantLock} of the model; the parts it is made of are plain objects that only
 * it touches, with that lock held: the {@link AdmissionQueue} of waiting calls, the
 * {@link AdmissionGate} that says whether the next can go, {@link TenantBuckets},
 * {@link Reservation} and {@link LimiterPermit} (what an attempt took),
 * {@link ProviderCalibration} and {@link BurstCapacity} (the limits in force),
 * {@link ModelPause}, {@link AdaptiveConcurrency}, {@link SlowStart},
 * {@link WaitEstimate} (how long a call would wait) and {@link AsyncAdmission} (the waits
 * of calls that hold no thread).
 *
 * <h2>Admission</h2> As {@link Admission} describes: a bounded queue in priority order
 * with aging, in front of the model's and its tenants' buckets, its concurrency limit and
 * its pause.
 *
 * <p>
 * A caller of {@link #acquire} waits only in the injected {@link TimeSource}'s
 * {@link TimeSource#await(Condition, long) await}; a call of {@link #acquireAsync} holds
 * no thread, its timers run on {@link TimeSource#schedule}. Waits and deadlines run on
 * its monotonic {@link TimeSource#nanoTime() nanoTime()}; instants (the end of a pause,
 * the time a response was observed) are converted at the edge. Thread-safe; calls never
 * wait while holding anything but this limiter's {@link ReentrantLock} (released while
 * waiting).
 *
 * <p>
 * With a {@link SharedBucketStore} (Redis) the lock is never held across a round trip
 * ({@link AdmissionGate}); the state shows the levels the store last reported.
 */
public final class ModelLimiter implements Admission {

    /** How much later than its arrival a call of each lower priority is ranked. */
    public static final Duration PRIORITY_STEP = AdmissionQueue.PRIORITY_STEP;

    private final String client;

    private final String model;

    private final Duration defaultMaxWait;

    private final TimeSource timeSource;

    private final ReentrantLock lock = new ReentrantLock();

    // Everything below is guarded by lock.

    private final BucketSet buckets;

    private final TenantBuckets tenantBuckets;

    private final ProviderCalibration calibration;

    private final ModelPause pause = new ModelPause();

    private final AdaptiveConcurrency concurrency;

    private final SlowStart slowStart;

    private final AdmissionQueue queue;

    private final AdmissionGate gate;

    private final WaitEstimate estimate;

    private final LimiterReadings readings;

    private final AsyncAdmission async;

    /**
     * Run once tokens given back to a shared store were applied: the calls its last
     * answer held back ask again.
     */
    final Runnable gaveBack;

    /**
     * Creates the admission control of one client and model with the given concurrency
     * and slow start settings.
     * @param client the client name
     * @param model the model name
     * @param limits the configured limits
     * @param queueCapacity most calls waiting at once, all priorities together
     * @param defaultMaxWait longest wait of a request that does not say
     * @param tenantLimits the limits of a tenant, {@code null} for none
     * @param store where the buckets live
     * @param timeSource time of the queue and how waiting calls wait (the store's buckets
     * should use the same)
     * @param options the adaptive concurrency limit's start and default ceiling, and the
     * slow start
     */
    public ModelLimiter(String client, String model, ModelLimits limits, int queueCapacity, Duration defaultMaxWait,
            Function<String, @Nullable TenantLimits> tenantLimits, BucketStore store, TimeSource timeSource,
            LimiterOptions options) {
        if (queueCapacity < 0) {
            throw new IllegalArgumentException("queueCapacity must not be negative, was " + queueCapacity);
        }
        if (defaultMaxWait.isNegative()) {
            throw new IllegalArgumentException("defaultMaxWait must not be negative, was " + defaultMaxWait);
        }
        this.client = client;
        this.model = model;
        this.defaultMaxWait = defaultMaxWait;
        this.timeSource = timeSource;
        this.buckets = new BucketSet(store, BucketKeys.model(client, model));
        this.queue = new AdmissionQueue(queueCapacity, new TenantFairShare(options.tenantWeights(), this.buckets));
        this.tenantBuckets = new TenantBuckets(store, BucketKeys.model(client, model), tenantLimits,
                options.maxTrackedNames(), this.queue::holds);
        this.calibration = new ProviderCalibration(limits, this.buckets);
        this.concurrency = new AdaptiveConcurrency(limits.maxConcurrency(), options.concurrency());
        this.slowStart = new SlowStart(options.slowStart());
        this.gate = new AdmissionGate(this, this.buckets, this.calibration, this.pause, this.concurrency,
                this.slowStart, (store instanceof SharedBucketStore shared) ? shared : null);
        this.estimate = new WaitEstimate(this.buckets, this.queue, this.pause);
        this.readings = new LimiterReadings(this, this.lock, this.buckets, this.tenantBuckets, this.calibration,
                this.pause, this.concurrency, this.queue, this.gate, this.estimate);
        this.gaveBack = () -> update((now) -> this.gate.bucketsChanged());
        this.async = new AsyncAdmission(this, this.lock, timeSource);
    }

    /**
     * The client this limiter belongs to.
     * @return the client name
     */
    public String client() {
        return this.client;
    }

    /**
     * The model this limiter belongs to.
     * @return the model name
     */
    public String model() {
        return this.model;
    }

    /**
     * The longest a request that does not say waits for admission.
     * @return {@code llm.throttle.queue.max-wait}
     */
    public Duration defaultMaxWait() {
        return this.defaultMaxWait;
    }

    @Override
    public Permit acquire(AdmissionRequest request) throws InterruptedException {
        try {
            this.lock.lockInterruptibly();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw ex;
        }
        try {
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedException("Interrupted before admission to " + this.client + "/" + this.model);
            }
            long now = now();
            return awaitAdmission(enqueue(request, now, this.lock.newCondition(), null), now);
        }
        finally {
            this.lock.unlock();
            this.async.complete();
        }
    }

    @Override
    public CompletableFuture<Permit> acquireAsync(AdmissionRequest request) {
        return this.async.acquire(request);
    }

    /**
     * Puts a call in the queue, or fails it at once when it could never fit or a pause
     * outlasts its wait.
     */
    Waiter enqueue(AdmissionRequest request, long now, @Nullable Condition condition, @Nullable AsyncAdmission async) {
        Duration maxWait = (request.maxWait() != null) ? request.maxWait() : this.defaultMaxWait;
        BucketSet tenant = this.tenantBuckets.of(request.tenant());
        long deadline = Nanos.saturatedAdd(now, Nanos.of(maxWait));
        LlmThrottleException refusal = this.gate.refusal(request, tenant, maxWait, now, deadline);
        if (refusal != null) {
            throw refusal;
        }
        return this.queue.add(request, tenant, maxWait, now, deadline, condition, async);
    }

    /**
     * Admits whoever can go now, the call just enqueued among them, and refuses it if it
     * must wait and the queue, or its tenant's share of it, is full.
     */
    void dispatchArrival(Waiter waiter, long now) {
        dispatch(now);
        QueueFullException full = this.queue.refusal(waiter, this.client, this.model);
        if (full != null) {
            leave(waiter);
            throw full;
        }
    }

    private Permit awaitAdmission(Waiter waiter, long arrival) throws InterruptedException {
        try {
            dispatchArrival(waiter, arrival);
            while (true) {
                if (waiter.permit != null) {
                    return waiter.permit;
                }
                if (waiter.failure != null) {
                    throw waiter.failure;
                }
                if (waiter.taking != null) {
                    take(waiter);
                    continue;
                }
                long now = now();
                if (now >= waiter.deadline) {
                    leave(waiter);
                    throw timeout(waiter, now);
                }
                long until = this.queue.waitUntil(waiter);
                this.timeSource.await(Objects.requireNonNull(waiter.condition),
                        Math.max(Nanos.saturatedSubtract(until, now), 1));
                dispatch(now());
            }
        }
        catch (InterruptedException ex) {
            leave(waiter);
            // Callers up the stack (the interceptor, the annotation's aspect) decide what
            // to do about the interrupt: keep the flag so they see it too.
            Thread.currentThread().interrupt();
            throw ex;
        }
        catch (RuntimeException | Error ex) {
            leave(waiter);
            throw ex;
        }
    }

    /**
     * Has the waiter, the queue's taker, take its buckets from the shared store (the lock
     * released meanwhile), then admits whoever can go; called with the lock held.
     */
    void take(Waiter waiter) throws InterruptedException {
        this.gate.take(waiter, this.lock);
        if (waiter.permit != null || waiter.failure != null) {
            this.queue.remove(waiter);
        }
        dispatch(now());
    }

    /**
     * Takes the waiter out of the queue, giving back a permit granted to it in the
     * meantime, or the slot it holds while it takes its buckets.
     */
    void leave(Waiter waiter) {
        this.queue.remove(waiter);
        this.gate.left(waiter);
        LimiterPermit permit = waiter.permit;
        if (permit != null) {
            waiter.permit = null;
            permit.revoke();
        }
        dispatch(now());
    }

    LlmThrottleException timeout(Waiter waiter, long now) {
        return this.estimate.timeout(waiter, now, this.client, this.model);
    }

    /**
     * Admits every waiter that can go now, in queue order, and works out when time alone
     * will let the next one go. Called with the lock held after every change of state.
     */
    private void dispatch(long now) {
        if (this.pause.holds(now)) {
            this.queue.holdUntil(this.pause.end());
        }
        else {
            this.queue.dispatch(now, this.gate);
        }
        Waiter timerOwner = this.queue.timerOwner();
        if (timerOwner != null && timerOwner.condition == null) {
            this.async.wakeAt(this.queue.nextWake(), now);
        }
        if (this.queue.isEmpty()) {
            this.pause.drained(now);
        }
    }

    /**
     * Changes this limiter's state with the lock held, then admits whoever can go now.
     * @param change the change, given the time now in nanoseconds of the limiter's clock
     */
    void update(LongConsumer change) {
        this.lock.lock();
        try {
            long now = now();
            change.accept(now);
            dispatch(now);
        }
        finally {
            this.lock.unlock();
            this.async.complete();
        }
    }

    /**
     * Applies what the provider's rate-limit headers said (see
     * {@link ProviderCalibration} for the rule): lower {@code -limit}s govern, lower
     * {@code -remaining}s pull the buckets down, a rounded one to the least it can mean;
     * a 429's remaining 0 empties the bucket, whatever drift let the call go.
     * @param snapshot the headers of one response
     */
    public void calibrate(RateLimitSnapshot snapshot) {
        update((now) -> applyHeaders(snapshot, now));
    }

    /**
     * Applies the headers of one response, if any, with the lock held (by
     * {@link #calibrate} and by a {@link Permit#settle(long, long, RateLimitSnapshot)
     * settlement} that carries them).
     */
    void applyHeaders(@Nullable RateLimitSnapshot snapshot, long now) {
        if (snapshot != null && !snapshot.isEmpty()) {
            this.calibration.apply(snapshot, this.timeSource.instant());
            this.slowStart.calibrated(now);
        }
    }

    /**
     * Holds every call of this model for {@code serverWait} from now (after a 429); see
     * {@link ModelPause} for what happens when it ends. Returns once a shared store holds
     * it too, or failed to within its timeout (it then holds on this instance alone).
     * @param serverWait how long the server asked to wait
     */
    public void pause(Duration serverWait) {
        pauseAsync(serverWait).join();
    }

    /**
     * Holds every call of this model as {@link #pause(Duration)} does, without waiting.
     * @param serverWait how long the server asked to wait
     * @return completes once a shared store holds the pause too (within its timeout)
     */
    public CompletableFuture<Void> pauseAsync(Duration serverWait) {
        CompletableFuture<Void> held = new CompletableFuture<>();
        update((now) -> this.gate.pause(Nanos.saturatedAdd(now, Nanos.of(serverWait)), serverWait)
            .whenComplete((done, failure) -> held.complete(null)));
        return held;
    }

    /**
     * Examines the waiting calls again: what one of them asks may have fallen (its
     * prompt's prefix is now in the provider's cache).
     */
    public void demandsChanged() {
        update((now) -> this.gate.bucketsChanged());
    }

    /** Forgets this model's buckets and its tenants' in this instance's store. */
    void forgetBuckets() {
        update((now) -> {
            this.buckets.forget();
            this.tenantBuckets.forgetAll();
            this.gate.bucketsChanged();
        });
    }

    /**
     * Ends a pause in force now (an operator's decision, through the endpoint's
     * {@code reset}); waiting calls are admitted as the buckets allow.
     */
    public void endPause() {
        update(this.pause::cancel);
    }

    /**
     * Replaces the configured limits; the next admission uses them. Limits learned from
     * the provider's headers are forgotten until the next response reports them again.
     * @param newLimits the new limits
     */
    public void updateLimits(ModelLimits newLimits) {
        update((now) -> {
            this.calibration.configure(newLimits);
            this.concurrency.resize(newLimits.maxConcurrency());
            this.gate.bucketsChanged();
        });
    }

    /**
     * The configured limits.
     * @return the limits
     */
    public ModelLimits limits() {
        // an immutable record in a volatile field: read on every settlement, lock-free
        return this.calibration.configured();
    }

    /**
     * A snapshot of this limiter's state for the actuator.
     * @return the state now
     */
    public LimiterState state() {
        return this.readings.state();
    }

    /**
     * Estimates how long {@code request} would wait for admission if it were enqueued
     * now, without enqueuing it (see {@link LimiterReadings#estimatedWait}).
     * @param request the request
     * @return the estimated wait, or {@code null} if the request can never be admitted
     */
    public @Nullable Duration estimatedWait(AdmissionRequest request) {
        return this.readings.estimatedWait(request);
    }

    TimeSource timeSource() {
        return this.timeSource;
    }

    long now() {
        return this.timeSource.nanoTime();
    }

    @Override
    public String toString() {
        return "ModelLimiter[" + this.client + "/" + this.model + "]";
    }

}
