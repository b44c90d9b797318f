package io.github.llmthrottle.limit;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.store.TokenBucket;
import io.github.llmthrottle.time.Nanos;

/**
 * Weighted fair queuing between the tenants waiting for one model (start-time fair
 * queuing over estimated tokens): a call of tenant T is placed in the
 * {@link AdmissionQueue} as if it arrived at its <em>virtual start</em>, the later of its
 * arrival and the virtual finish of T's previous call, and moves T's virtual finish on by
 * its tokens divided by T's weight, in the time the model takes to serve that many tokens
 * at its limit. Under contention, tenants weighted 3 and 1 are therefore admitted 3
 * tokens to 1; a tenant alone has nobody to wait for, and its calls keep their order. The
 * virtual start takes the place of the arrival in the queue's ranking, so priorities and
 * aging work as before between the virtual starts.
 * <p>
 * Not thread-safe: the owning {@link ModelLimiter} guards it with its lock.
 */
final class TenantFairShare {

    private static final long MINUTE_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** Tenants remembered before those whose finish has passed are forgotten. */
    private static final int PRUNE_ABOVE = 1024;

    /** Virtual time a token takes when the model has no token limit: a microsecond. */
    private static final long DEFAULT_NANOS_PER_TOKEN = 1000;

    private final TenantWeights weights;

    private final BucketSet buckets;

    private final Map<String, Long> finish = new HashMap<>();

    /**
     * Creates the fair share of one model.
     * @param weights the tenants' weights
     * @param buckets the model's buckets, whose input-token capacity sets the pace of
     * virtual time
     */
    TenantFairShare(TenantWeights weights, BucketSet buckets) {
        this.weights = weights;
        this.buckets = buckets;
    }

    /**
     * The virtual start of a call arriving now.
     * @param request the call
     * @param arrival its arrival, in nanoseconds of the limiter's clock
     * @return the time the queue ranks it by: its arrival without tenant or weights
     */
    long start(AdmissionRequest request, long arrival) {
        String tenant = request.tenant();
        if (tenant == null || this.weights.isEmpty()) {
            return arrival;
        }
        if (this.finish.size() > PRUNE_ABOVE) {
            this.finish.values().removeIf((finish) -> finish <= arrival);
        }
        Long previous = this.finish.get(tenant);
        long start = (previous != null) ? Math.max(previous, arrival) : arrival;
        double tokens = (double) request.inputTokens() + request.outputTokens();
        long cost = (long) Math.min(Long.MAX_VALUE / 2.0, tokens * nanosPerToken() / this.weights.weight(tenant));
        this.finish.put(tenant, Nanos.saturatedAdd(start, cost));
        return start;
    }

    private double nanosPerToken() {
        TokenBucket bucket = this.buckets.get(Dimension.INPUT_TOKENS);
        return (bucket != null && bucket.capacity() > 0) ? (double) MINUTE_NANOS / bucket.capacity()
                : DEFAULT_NANOS_PER_TOKEN;
    }

}
