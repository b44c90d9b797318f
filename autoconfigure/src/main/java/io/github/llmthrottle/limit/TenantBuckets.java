package io.github.llmthrottle.limit;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * The buckets of each tenant on one {@link ModelLimiter}'s model, one {@link BucketSet}
 * per tenant with the limits {@link TenantLimits} give it, created on the tenant's first
 * call (a tenant without limits gets an empty set, which limits nothing). They apply on
 * top of the model's own buckets, under keys of their own:
 * {@code client:model:tenant:name}.
 *
 * <p>
 * Not thread-safe: the owning {@link ModelLimiter} guards it with its lock.
 */
final class TenantBuckets {

    private final BucketStore store;

    private final String keyPrefix;

    private final Function<String, @Nullable TenantLimits> limits;

    private final Map<String, BucketSet> buckets = new HashMap<>();

    /**
     * Creates the (still empty) tenant buckets of one model.
     * @param store where the buckets live
     * @param keyPrefix the key prefix of the model's buckets ({@code client:model})
     * @param limits the limits of a tenant, {@code null} for none
     */
    TenantBuckets(BucketStore store, String keyPrefix, Function<String, @Nullable TenantLimits> limits) {
        this.store = store;
        this.keyPrefix = keyPrefix;
        this.limits = limits;
    }

    /** The buckets of {@code tenant}, {@code null} for a call without tenant. */
    @Nullable BucketSet of(@Nullable String tenant) {
        if (tenant == null) {
            return null;
        }
        BucketSet set = this.buckets.get(tenant);
        if (set == null) {
            set = new BucketSet(this.store, this.keyPrefix + ":tenant:" + tenant);
            TenantLimits limits = this.limits.apply(tenant);
            if (limits != null) {
                for (Dimension dimension : Dimension.values()) {
                    set.limit(dimension, limits.perMinute(dimension));
                }
            }
            this.buckets.put(tenant, set);
        }
        return set;
    }

}
