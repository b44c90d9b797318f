package io.github.llmthrottle.limit;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.ReentrantLock;

import io.github.llmthrottle.store.TokenBucket;
import io.github.llmthrottle.time.Nanos;
import org.jspecify.annotations.Nullable;

/**
 * The read side of a {@link ModelLimiter}: the snapshot of its state the actuator shows
 * and the wait routing estimates before it enqueues a call, each read under the limiter's
 * lock from the limiter's own parts, changing none of them.
 */
final class LimiterReadings {

    private final ModelLimiter limiter;

    private final ReentrantLock lock;

    private final BucketSet buckets;

    private final TenantBuckets tenantBuckets;

    private final ProviderCalibration calibration;

    private final ModelPause pause;

    private final AdaptiveConcurrency concurrency;

    private final AdmissionQueue queue;

    private final AdmissionGate gate;

    private final WaitEstimate estimate;

    LimiterReadings(ModelLimiter limiter, ReentrantLock lock, BucketSet buckets, TenantBuckets tenantBuckets,
            ProviderCalibration calibration, ModelPause pause, AdaptiveConcurrency concurrency, AdmissionQueue queue,
            AdmissionGate gate, WaitEstimate estimate) {
        this.limiter = limiter;
        this.lock = lock;
        this.buckets = buckets;
        this.tenantBuckets = tenantBuckets;
        this.calibration = calibration;
        this.pause = pause;
        this.concurrency = concurrency;
        this.queue = queue;
        this.gate = gate;
        this.estimate = estimate;
    }

    /**
     * A snapshot of this limiter's state for the actuator.
     * @return the state now
     */
    LimiterState state() {
        this.lock.lock();
        try {
            long now = this.limiter.now();
            LimiterState.Available available = new LimiterState.Available(available(Dimension.REQUESTS),
                    available(Dimension.INPUT_TOKENS), available(Dimension.OUTPUT_TOKENS), available(Dimension.TOKENS));
            Instant paused = this.pause.holds(now)
                    ? this.limiter.timeSource().instant().plusNanos(Nanos.saturatedSubtract(this.pause.end(), now))
                    : null;
            return new LimiterState(this.limiter.client(), this.limiter.model(), this.calibration.configured(),
                    this.calibration.effectiveLimits(), this.calibration.effectiveLimit(Dimension.TOKENS), available,
                    this.calibration.lastSnapshot(), paused, this.concurrency.inFlight(), this.concurrency.limit(),
                    this.queue.queued());
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Estimates how long {@code request} would wait for admission if it were enqueued
     * now, without enqueuing it: for routing a call to a fallback model before it waits.
     * Counts the pause, the spread-out release after it, the model's and tenant's buckets
     * and the demand of the calls queued ahead of it; not the wait for a concurrency
     * slot, which nothing predicts (see {@link WaitEstimate}).
     * @param request the request
     * @return the estimated wait, or {@code null} if the request can never be admitted
     * (it needs more than a whole bucket)
     */
    @Nullable Duration estimatedWait(AdmissionRequest request) {
        this.lock.lock();
        try {
            BucketSet tenant = this.tenantBuckets.of(request.tenant());
            if (this.gate.oversize(request, tenant) != null) {
                return null;
            }
            long wait = this.estimate.nanos(request, tenant, this.limiter.now(), true);
            return (wait == Long.MAX_VALUE) ? null : Duration.ofNanos(wait);
        }
        finally {
            this.lock.unlock();
        }
    }

    private @Nullable Long available(Dimension dimension) {
        TokenBucket bucket = this.buckets.get(dimension);
        return (bucket != null) ? bucket.availableTokens() : null;
    }

}
