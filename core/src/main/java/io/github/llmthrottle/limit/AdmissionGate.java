package io.github.llmthrottle.limit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.SharedStoreUnavailableException;
import io.github.llmthrottle.TenantQuotaExceededException;
import io.github.llmthrottle.limit.AdmissionQueue.Blocker;
import io.github.llmthrottle.limit.AdmissionQueue.Waiter;
import io.github.llmthrottle.store.BucketKeys;
import io.github.llmthrottle.store.BucketStoreUnavailableException;
import io.github.llmthrottle.store.Settlement;
import io.github.llmthrottle.store.SharedBucketStore;
import io.github.llmthrottle.store.TokenBucket;
import io.github.llmthrottle.store.WaitingDemand;
import io.github.llmthrottle.time.Nanos;
import org.jspecify.annotations.Nullable;

/**
 * The gate between one {@link ModelLimiter}'s {@link AdmissionQueue} and the model's
 * resources: whether a waiting call can go now and, if it can, its admission. The queue
 * decides who is next; the gate decides whether they may go.
 *
 * <p>
 * A call goes when the spread-out release after a pause does not hold it
 * ({@link ModelPause}), a concurrency slot is free ({@link AdaptiveConcurrency}), no call
 * probing the provider is still out ({@link SlowStart}), the model's buckets hold what it
 * needs and then its tenant's buckets do; it then takes all of it at once
 * ({@link Reservation}) and gets its {@link LimiterPermit}. A call that needs more than a
 * whole bucket fails with {@link DemandExceedsLimitException} (or
 * {@link TenantQuotaExceededException} for a tenant bucket): it could never fit. That is
 * checked on arrival, and again while the call waits, since the limits may be lowered
 * below what it needs. When a shared store is down and configured to reject, the call
 * fails with {@link SharedStoreUnavailableException}.
 *
 * <p>
 * A call whose buckets would hold enough for it only after its deadline is marked
 * {@link Waiter#beyondDeadline}: it holds back nobody behind it, since it will time out
 * unless tokens come back first. When no call of the model is in flight (and the buckets
 * are this instance's alone) nothing can give tokens back, and it fails at once with the
 * {@link AdmissionTimeoutException} it would get at its deadline.
 *
 * <h2>Shared store</h2> With a {@link SharedBucketStore} (Redis) the gate asks nothing of
 * the buckets itself: a call that may go takes its slot and becomes the <em>taker</em>
 * ({@link Waiter#taking}), and takes all of its buckets in one round trip on its own
 * thread, without the limiter's lock ({@link #take}), and the answer admits it or holds
 * it back. One call of the model takes at a time, so the queue order holds, and nobody
 * waits for the store but the call whose buckets are asked for. A call the store held
 * back asks again when the store said its buckets would hold enough (at most
 * {@link #SHARED_RECHECK_NANOS} later, as other instances may give back sooner), or as
 * soon as this instance gave tokens back ({@link #bucketsChanged()}), including while its
 * take was out: an answer sent before a give-back was applied does not hold it back. Each
 * take carries the taker's priority and what calls of higher priorities wait behind it
 * ({@link FleetPriority}), so that the store keeps a reserve for them across instances. A
 * call of a model without any limit takes no bucket, but is a taker all the same: it asks
 * the store whether a pause the store shares holds it
 * ({@link SharedBucketStore#takeNone}), so that once another instance's pause is in the
 * store no call of the model goes until its end.
 *
 * <p>
 * Not thread-safe: the owning {@link ModelLimiter} calls it with its lock held.
 */
final class AdmissionGate {

    private static final long RACE_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * Longest a call waits on a shared store's answer before asking again: other
     * instances may give tokens back sooner than the answer says.
     */
    static final long SHARED_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final ModelLimiter limiter;

    private final BucketSet buckets;

    private final ProviderCalibration calibration;

    private final ModelPause pause;

    private final AdaptiveConcurrency concurrency;

    private final SlowStart slowStart;

    private final @Nullable SharedBucketStore shared;

    /** The call taking its buckets from the shared store now, if any. */
    private @Nullable Waiter taker;

    /** Counts the changes of this instance's buckets that may let a held call go. */
    private long generation;

    AdmissionGate(ModelLimiter limiter, BucketSet buckets, ProviderCalibration calibration, ModelPause pause,
            AdaptiveConcurrency concurrency, SlowStart slowStart, @Nullable SharedBucketStore shared) {
        this.limiter = limiter;
        this.buckets = buckets;
        this.calibration = calibration;
        this.pause = pause;
        this.concurrency = concurrency;
        this.slowStart = slowStart;
        this.shared = shared;
    }

    /**
     * Decides about one waiting call: admits it ({@link Waiter#admit}), fails it
     * ({@link Waiter#fail}), or marks in {@link Waiter#blockedBy} what holds it back (the
     * model, or only its tenant).
     * @param waiter the call
     * @param now the time now, in nanoseconds of the limiter's clock
     * @param queue the queue it waits in (what waits behind a taker is reported to a
     * shared store)
     * @return for a call held back, when time alone may let it go ({@link Long#MAX_VALUE}
     * if only a change of state can); {@link Long#MAX_VALUE} for a call admitted or
     * failed
     */
    long examine(Waiter waiter, long now, AdmissionQueue queue) {
        if (waiter.taking != null) {
            // Its own thread is taking its buckets: the answer decides.
            return holdBack(waiter, Blocker.MODEL, Long.MAX_VALUE);
        }
        waiter.beyondDeadline = false;
        // its prompt's prefix may have been cached since it arrived; a call above the
        // provider's learned burst waits for a full bucket, its settlement takes the rest
        waiter.request = this.buckets.withinBurst(waiter.request.recounted());
        AdmissionRequest request = waiter.request;
        LlmThrottleException failure = oversize(request, waiter.tenant);
        if (failure != null) {
            // Limits were lowered while it waited: it can never fit now.
            waiter.fail(failure);
            return Long.MAX_VALUE;
        }
        if (this.pause.spacingHolds(now)) {
            return holdBack(waiter, Blocker.MODEL, this.pause.nextRelease());
        }
        if (this.concurrency.isFull() || this.slowStart.holds(now, this.concurrency.inFlight())) {
            // a released slot, or the headers of the call probing the provider, wake it
            return holdBack(waiter, Blocker.MODEL, Long.MAX_VALUE);
        }
        if (this.shared != null) {
            return examineShared(waiter, now, queue);
        }
        long modelWait = this.buckets.nanosToWait(request.inputTokens(), request.outputTokens());
        if (modelWait > 0) {
            long until = Nanos.saturatedAdd(now, modelWait);
            waiter.beyondDeadline = until > waiter.deadline;
            return holdBack(waiter, Blocker.MODEL, until);
        }
        if (waiter.tenant != null && request.tenant() != null) {
            long tenantWait = waiter.tenant.nanosToWait(request.inputTokens(), request.outputTokens());
            if (tenantWait > 0) {
                return holdBack(waiter, Blocker.TENANT, Nanos.saturatedAdd(now, tenantWait));
            }
        }
        Reservation reservation;
        try {
            reservation = Reservation.take(this.buckets, waiter.tenant, request.inputTokens(), request.outputTokens());
        }
        catch (BucketStoreUnavailableException ex) {
            // The shared store is down and configured to reject (not to fall back).
            waiter.fail(new SharedStoreUnavailableException(this.limiter.client(), this.limiter.model(),
                    ex.getRetryAfter(), ex));
            return Long.MAX_VALUE;
        }
        if (reservation == null) {
            // A shared store changed between estimate and consumption: try again shortly.
            return holdBack(waiter, Blocker.MODEL, Nanos.saturatedAdd(now, RACE_RETRY_NANOS));
        }
        admit(waiter, reservation, now, this.concurrency.admit());
        return Long.MAX_VALUE;
    }

    /**
     * Fails a call marked {@link Waiter#beyondDeadline} at once when nothing can give
     * tokens back before its deadline: no call of the model is in flight and the buckets
     * are this instance's alone, so only time fills them, and not in time. It gets the
     * {@link AdmissionTimeoutException} it would get at its deadline.
     * @param waiter the call, held back by the model's buckets until {@code until}
     * @param until when time alone lets it go
     * @param now the time now, in nanoseconds of the limiter's clock
     */
    void failBeyondDeadline(Waiter waiter, long until, long now) {
        if (this.shared != null || this.concurrency.inFlight() > 0) {
            return;
        }
        waiter.fail(new AdmissionTimeoutException(this.limiter.client(), this.limiter.model(), waiter.maxWait,
                (until != Long.MAX_VALUE) ? Duration.ofNanos(Nanos.saturatedSubtract(until, now)) : null));
    }

    private void admit(Waiter waiter, Reservation reservation, long now, int inFlight) {
        waiter.admit(new LimiterPermit(this.limiter, reservation, this.concurrency, this.slowStart, now, inFlight));
        this.pause.admitted(now, this.calibration.effectiveLimit(Dimension.REQUESTS));
    }

    /**
     * The shared store's part of {@link #examine}: makes the call the taker if nobody is
     * taking and the store's last answer does not hold it back.
     */
    private long examineShared(Waiter waiter, long now, AdmissionQueue queue) {
        if (this.taker != null) {
            // One take at a time, in queue order: nobody behind it goes before its
            // answer.
            return holdBack(waiter, Blocker.MODEL, Long.MAX_VALUE);
        }
        if (waiter.retryGeneration == this.generation && now < waiter.retryAt) {
            waiter.beyondDeadline = waiter.retryBeyondDeadline;
            return holdBack(waiter, waiter.retryBlocker, waiter.retryAt);
        }
        // Without a limit in any dimension it takes no bucket, but asks the store all the
        // same, in one round trip: a pause another instance shares holds it at once.
        Demand demand = demand(waiter, queue, now);
        waiter.taking = demand;
        this.taker = waiter;
        waiter.takeTurn();
        return holdBack(waiter, Blocker.MODEL, Long.MAX_VALUE);
    }

    private Demand demand(Waiter waiter, AdmissionQueue queue, long now) {
        AdmissionRequest request = waiter.request;
        List<Dimension> dimensions = new ArrayList<>();
        List<TokenBucket> buckets = new ArrayList<>();
        List<Long> costs = new ArrayList<>();
        this.buckets.collect(request.inputTokens(), request.outputTokens(), dimensions, buckets, costs);
        int modelBuckets = buckets.size();
        if (waiter.tenant != null && request.tenant() != null) {
            waiter.tenant.collect(request.inputTokens(), request.outputTokens(), dimensions, buckets, costs);
        }
        Dimension[] taken = dimensions.toArray(Dimension[]::new);
        // The slot is the taker's while it takes, so that the answer finds it free.
        return new Demand(buckets, taken, costs.stream().mapToLong(Long::longValue).toArray(), modelBuckets,
                this.concurrency.admit(), this.generation,
                FleetPriority.demand(queue, waiter, taken, modelBuckets, now));
    }

    /**
     * Takes the taker's buckets from the shared store in one round trip, on the taker's
     * own thread with {@code lock} (the limiter's, held when called) released meanwhile,
     * so that only the taker waits for the store; then applies the answer
     * ({@link #taken}).
     * @param waiter the taker
     * @param lock the limiter's lock
     * @throws InterruptedException if the taker is interrupted meanwhile
     */
    void take(Waiter waiter, ReentrantLock lock) throws InterruptedException {
        Demand demand = waiter.taking;
        SharedBucketStore shared = this.shared;
        if (demand == null || shared == null) {
            return;
        }
        SharedBucketStore.Take take = null;
        BucketStoreUnavailableException failure = null;
        lock.unlock();
        try {
            take = demand.buckets().isEmpty()
                    ? shared.takeNone(BucketKeys.model(this.limiter.client(), this.limiter.model()))
                    : shared.take(demand.buckets(), demand.costs(), demand.modelBuckets(), demand.waiting(),
                            this.limiter.gaveBack);
        }
        catch (BucketStoreUnavailableException ex) {
            failure = ex;
        }
        finally {
            lock.lock();
        }
        taken(waiter, take, failure, this.limiter.now());
    }

    /**
     * Applies the answer of the shared store to the taker: admits it, fails it, or holds
     * it back until the store's buckets would hold what it lacks.
     * @param waiter the call that took
     * @param take the store's answer, {@code null} on a failure
     * @param failure why the store refused, {@code null} if it answered
     * @param now the time now, in nanoseconds of the limiter's clock
     */
    private void taken(Waiter waiter, SharedBucketStore.@Nullable Take take,
            @Nullable BucketStoreUnavailableException failure, long now) {
        Demand demand = waiter.taking;
        if (demand == null) {
            return;
        }
        waiter.taking = null;
        this.taker = null;
        Settlement settlement = (take != null) ? take.settlement() : null;
        if (settlement != null && this.pause.holds(now)) {
            // paused while its take was out: granted before the pause reached the store,
            // but this instance knows better than to send it now
            long[] giveBack = demand.costs().clone();
            for (int i = 0; i < giveBack.length; i++) {
                giveBack[i] = -giveBack[i];
            }
            settlement.adjust(giveBack, this.limiter.gaveBack);
            take = new SharedBucketStore.Take(null, 0, 0);
        }
        if (take != null && take.settlement() != null) {
            admit(waiter, new Reservation(demand.dimensions(), take.settlement(), waiter.request.inputTokens(),
                    waiter.request.outputTokens()), now, demand.inFlight());
            return;
        }
        this.concurrency.revoke();
        if (take != null && take.pauseNanos() > 0) {
            // another instance was told to wait: so is this one, until the same time
            this.pause.extendTo(Nanos.saturatedAdd(now, take.pauseNanos()));
        }
        if (take == null) {
            waiter.fail(new SharedStoreUnavailableException(this.limiter.client(), this.limiter.model(),
                    (failure != null) ? failure.getRetryAfter() : null, failure));
            return;
        }
        long modelWait = take.modelWaitNanos();
        long tenantWait = take.tenantWaitNanos();
        Blocker blocker = (modelWait > 0 || tenantWait <= 0) ? Blocker.MODEL : Blocker.TENANT;
        long wait = Math.min((blocker == Blocker.MODEL) ? modelWait : tenantWait, SHARED_RECHECK_NANOS);
        waiter.retryAt = Nanos.saturatedAdd(now, Math.max(wait, RACE_RETRY_NANOS));
        // The answer holds only while nothing was given back since the take was sent: a
        // give-back applied while it was out (or before its answer got the lock) may not
        // be in it, and would wake nobody else, so the call asks again at once.
        waiter.retryGeneration = demand.generation();
        waiter.retryBlocker = blocker;
        waiter.blockedBy = blocker;
        // what the store says, not the recheck: other instances may give back sooner
        waiter.retryBeyondDeadline = blocker == Blocker.MODEL && Nanos.saturatedAdd(now, modelWait) > waiter.deadline;
        waiter.beyondDeadline = waiter.retryBeyondDeadline;
    }

    /**
     * Pauses the model until {@code until}, and every instance sharing the store for
     * {@code wait} of the store's time (sent without waiting).
     * @param until the end of the pause, in nanoseconds of the limiter's clock
     * @param wait how long the provider asked to wait
     * @return completes once the store holds the pause too (at once without one)
     */
    CompletableFuture<Void> pause(long until, Duration wait) {
        this.pause.extendTo(until);
        if (this.shared == null || wait.isNegative()) {
            return CompletableFuture.completedFuture(null);
        }
        long spacing = ModelPause.spacing(this.calibration.effectiveLimit(Dimension.REQUESTS));
        return this.shared.pause(BucketKeys.model(this.limiter.client(), this.limiter.model()), wait,
                Duration.ofNanos(spacing));
    }

    /** Forgets the take of a call that leaves the queue while taking. */
    void left(Waiter waiter) {
        if (waiter.taking != null) {
            waiter.taking = null;
            if (this.taker == waiter) {
                this.taker = null;
            }
            this.concurrency.revoke();
        }
    }

    /**
     * Records that this instance's buckets changed in a way that may let a call held back
     * by the shared store's last answer go (tokens given back, a limit raised): it asks
     * again.
     */
    void bucketsChanged() {
        this.generation++;
    }

    /**
     * The failure of a request larger than a whole bucket of the model or of its tenant.
     * @param request the request
     * @param tenant its tenant's buckets, {@code null} without a tenant
     * @return the failure, or {@code null} if the request fits
     */
    @Nullable LlmThrottleException oversize(AdmissionRequest request, @Nullable BucketSet tenant) {
        long input = request.inputTokens();
        long output = request.outputTokens();
        Dimension dimension = this.buckets.oversize(input, output);
        if (dimension != null) {
            TokenBucket bucket = this.buckets.get(dimension);
            return new DemandExceedsLimitException(this.limiter.client(), this.limiter.model(), dimension,
                    dimension.cost(input, output), (bucket != null) ? bucket.burstCapacity() : 0);
        }
        if (tenant != null && request.tenant() != null && tenant.oversize(input, output) != null) {
            return new TenantQuotaExceededException(this.limiter.client(), this.limiter.model(), request.tenant(),
                    null);
        }
        return null;
    }

    /**
     * The refusal of a call on arrival: it could never fit ({@link #oversize}), or the
     * pause in force outlasts its wait.
     */
    @Nullable LlmThrottleException refusal(AdmissionRequest request, @Nullable BucketSet tenant, Duration maxWait, long now,
            long deadline) {
        LlmThrottleException oversize = oversize(request, tenant);
        if (oversize == null && this.pause.end() > deadline) {
            return new AdmissionTimeoutException(this.limiter.client(), this.limiter.model(), maxWait,
                    Duration.ofNanos(Nanos.saturatedSubtract(this.pause.end(), now)));
        }
        return oversize;
    }

    private static long holdBack(Waiter waiter, Blocker blocker, long until) {
        waiter.blockedBy = blocker;
        return until;
    }

    /**
     * What a taker takes from the shared store: the buckets of its model, then of its
     * tenant, with their dimensions and what it needs of each.
     *
     * @param buckets the buckets, the model's first
     * @param dimensions the dimension of each
     * @param costs what the call needs of each
     * @param modelBuckets how many of the buckets are the model's
     * @param inFlight the calls in flight with the taker's slot, itself included
     * @param generation the changes of this instance's buckets counted when the take was
     * sent
     * @param waiting the taker's priority and the demand of higher priorities waiting
     * behind it, for the other instances
     */
    record Demand(List<TokenBucket> buckets, Dimension[] dimensions, long[] costs, int modelBuckets, int inFlight,
            long generation, WaitingDemand waiting) {
    }

}
