package io.github.llmthrottle.limit;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.TenantQuotaExceededException;
import io.github.llmthrottle.limit.AdmissionQueue.Waiter;
import io.github.llmthrottle.store.TokenBucket;
import io.github.llmthrottle.time.Nanos;
import org.jspecify.annotations.Nullable;

/**
 * How long a call would wait for admission to one {@link ModelLimiter} if it were
 * enqueued now, without enqueuing it: what
 * {@link ModelLimiter#estimatedWait(AdmissionRequest)} tells routing (to send a call to a
 * fallback model before it waits), and the retry-after of a call that timed out. Counts
 * the pause, the spread-out release after it, the model's and the tenant's buckets and,
 * when asked, the demand of the calls queued ahead; not the wait for a concurrency slot,
 * which nothing predicts. Demand beyond a whole bucket counts one minute / limit per
 * further token.
 *
 * <p>
 * Not thread-safe: the owning {@link ModelLimiter} calls it with its lock held.
 */
final class WaitEstimate {

    private static final long MINUTE_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final BucketSet buckets;

    private final AdmissionQueue queue;

    private final ModelPause pause;

    WaitEstimate(BucketSet buckets, AdmissionQueue queue, ModelPause pause) {
        this.buckets = buckets;
        this.queue = queue;
        this.pause = pause;
    }

    /**
     * The failure of a call whose wait is over, with the wait it would still have as its
     * retry-after: {@link TenantQuotaExceededException} when its tenant's buckets were
     * what held it, {@link AdmissionTimeoutException} otherwise.
     */
    LlmThrottleException timeout(Waiter waiter, long now, String client, String model) {
        long wait = nanos(waiter.request, waiter.tenant, now, false);
        Duration retryAfter = (wait > 0 && wait != Long.MAX_VALUE) ? Duration.ofNanos(wait) : null;
        if (waiter.blockedBy == AdmissionQueue.Blocker.TENANT && waiter.request.tenant() != null) {
            return new TenantQuotaExceededException(client, model, waiter.request.tenant(), retryAfter);
        }
        return new AdmissionTimeoutException(client, model, waiter.maxWait, retryAfter);
    }

    /**
     * The estimated wait of {@code request}.
     * @param request the request
     * @param tenant its tenant's buckets, {@code null} without a tenant
     * @param now the time now, in nanoseconds of the limiter's clock
     * @param countQueue whether to count the calls queued ahead of it (a call that is
     * already in the queue has them behind it, or admitted)
     * @return nanoseconds ({@link Long#MAX_VALUE} while a pause without end holds)
     */
    long nanos(AdmissionRequest request, @Nullable BucketSet tenant, long now, boolean countQueue) {
        long wait = this.pause.remainingNanos(now);
        long rank = AdmissionQueue.rank(request.priority(), now);
        Map<Dimension, Long> modelAhead = new EnumMap<>(Dimension.class);
        Map<Dimension, Long> tenantAhead = new EnumMap<>(Dimension.class);
        if (countQueue) {
            for (AdmissionQueue.Waiter waiter : this.queue) {
                if (waiter.rank > rank) {
                    break;
                }
                add(modelAhead, waiter.request);
                if (request.tenant() != null && request.tenant().equals(waiter.request.tenant())) {
                    add(tenantAhead, waiter.request);
                }
            }
        }
        for (Dimension dimension : Dimension.values()) {
            long cost = dimension.cost(request.inputTokens(), request.outputTokens());
            wait = Math.max(wait, refillNanos(this.buckets.get(dimension),
                    Dimension.saturatedAdd(cost, modelAhead.getOrDefault(dimension, 0L))));
            if (tenant != null) {
                wait = Math.max(wait, refillNanos(tenant.get(dimension),
                        Dimension.saturatedAdd(cost, tenantAhead.getOrDefault(dimension, 0L))));
            }
        }
        return wait;
    }

    private static void add(Map<Dimension, Long> sums, AdmissionRequest request) {
        for (Dimension dimension : Dimension.values()) {
            sums.merge(dimension, dimension.cost(request.inputTokens(), request.outputTokens()),
                    Dimension::saturatedAdd);
        }
    }

    private static long refillNanos(@Nullable TokenBucket bucket, long needed) {
        if (bucket == null || needed <= 0) {
            return 0;
        }
        // Bucket4j knows the fractions of a token refilled so far; beyond one bucket's
        // worth, each further token takes one minute / limit.
        long perMinute = bucket.capacity();
        long burst = bucket.burstCapacity();
        long wait = bucket.nanosToWaitFor(Math.min(needed, burst));
        if (needed > burst) {
            double beyond = Math.ceil((double) (needed - burst) * MINUTE_NANOS / perMinute);
            wait = (beyond >= Long.MAX_VALUE) ? Long.MAX_VALUE - 1 : Nanos.saturatedAdd(wait, (long) beyond);
        }
        return Math.min(wait, Long.MAX_VALUE - 1);
    }

}
