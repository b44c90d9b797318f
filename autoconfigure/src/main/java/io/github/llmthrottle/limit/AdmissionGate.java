package io.github.llmthrottle.limit;

import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.SharedStoreUnavailableException;
import io.github.llmthrottle.TenantQuotaExceededException;
import io.github.llmthrottle.limit.AdmissionQueue.Blocker;
import io.github.llmthrottle.limit.AdmissionQueue.Waiter;
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
 * Not thread-safe: the owning {@link ModelLimiter} calls it with its lock held.
 */
final class AdmissionGate {

    private static final long RACE_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ModelLimiter limiter;

    private final BucketSet buckets;

    private final ProviderCalibration calibration;

    private final ModelPause pause;

    private final AdaptiveConcurrency concurrency;

    private final SlowStart slowStart;

    AdmissionGate(ModelLimiter limiter, BucketSet buckets, ProviderCalibration calibration, ModelPause pause,
            AdaptiveConcurrency concurrency, SlowStart slowStart) {
        this.limiter = limiter;
        this.buckets = buckets;
        this.calibration = calibration;
        this.pause = pause;
        this.concurrency = concurrency;
        this.slowStart = slowStart;
    }

    /**
     * Decides about one waiting call: admits it ({@link Waiter#admit}), fails it
     * ({@link Waiter#fail}), or marks in {@link Waiter#blockedBy} what holds it back (the
     * model, or only its tenant).
     * @param waiter the call
     * @param now the time now, in nanoseconds of the limiter's clock
     * @return for a call held back, when time alone may let it go ({@link Long#MAX_VALUE}
     * if only a change of state can); {@link Long#MAX_VALUE} for a call admitted or
     * failed
     */
    long examine(Waiter waiter, long now) {
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
        long modelWait = this.buckets.nanosToWait(request.inputTokens(), request.outputTokens());
        if (modelWait > 0) {
            return holdBack(waiter, Blocker.MODEL, Nanos.saturatedAdd(now, modelWait));
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
        waiter.admit(new LimiterPermit(this.limiter, reservation, this.concurrency, this.slowStart, now,
                this.concurrency.admit()));
        this.pause.admitted(now, this.calibration.effectiveLimit(Dimension.REQUESTS));
        return Long.MAX_VALUE;
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

    private static long holdBack(Waiter waiter, Blocker blocker, long until) {
        waiter.blockedBy = blocker;
        return until;
    }

}
