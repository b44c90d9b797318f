package io.github.llmthrottle.limit;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

import io.github.llmthrottle.store.BucketKeys;
import io.github.llmthrottle.store.BucketStore;
import org.jspecify.annotations.Nullable;

/**
 * The buckets of each tenant on one {@link ModelLimiter}'s model, one {@link BucketSet}
 * per tenant with the limits {@link TenantLimits} give it, created on the tenant's first
 * call (a tenant without limits gets an empty set, which limits nothing). They apply on
 * top of the model's own buckets, under keys of their own:
 * {@code client:model:tenant:name}. A bounded number of tenants are tracked at once:
 * beyond it the least recently used are forgotten, but only once their buckets are full
 * again (nothing taken that has not refilled, nothing owed), so that a tenant cannot
 * reset its limits by cycling through more tenant names than the bound. Buckets refill
 * within about a minute, so the tenants kept beyond the bound are those that took tokens
 * in the last minute or so, which the model's own admissions bound.
 *
 * <p>
 * Not thread-safe: the owning {@link ModelLimiter} guards it with its lock.
 */
final class TenantBuckets {

    private final BucketStore store;

    private final String keyPrefix;

    private final Function<String, @Nullable TenantLimits> limits;

    /** Most recently used last. */
    private final LinkedHashMap<String, BucketSet> buckets = new LinkedHashMap<>(16, 0.75f, true);

    private final int maxTracked;

    private final Predicate<String> inUse;

    /**
     * Creates the (still empty) tenant buckets of one model.
     * @param store where the buckets live
     * @param keyPrefix the key prefix of the model's buckets ({@code client:model})
     * @param limits the limits of a tenant, {@code null} for none
     * @param maxTracked how many tenants are tracked at once, the least recently used
     * forgotten beyond
     * @param inUse whether a tenant has calls waiting (those are never forgotten)
     */
    TenantBuckets(BucketStore store, String keyPrefix, Function<String, @Nullable TenantLimits> limits, int maxTracked,
            Predicate<String> inUse) {
        this.store = store;
        this.keyPrefix = keyPrefix;
        this.limits = limits;
        this.maxTracked = maxTracked;
        this.inUse = inUse;
    }

    /** The buckets of {@code tenant}, {@code null} for a call without tenant. */
    @Nullable BucketSet of(@Nullable String tenant) {
        if (tenant == null) {
            return null;
        }
        BucketSet set = this.buckets.get(tenant);
        if (set == null) {
            set = new BucketSet(this.store, BucketKeys.tenant(this.keyPrefix, tenant));
            TenantLimits limits = this.limits.apply(tenant);
            if (limits != null) {
                for (Dimension dimension : Dimension.values()) {
                    set.limit(dimension, limits.perMinute(dimension));
                }
            }
            this.buckets.put(tenant, set);
            forgetIdle(tenant);
        }
        return set;
    }

    /** How many tenants are tracked now. */
    int size() {
        return this.buckets.size();
    }

    /**
     * Forgets the least recently used tenants beyond {@link #maxTracked} that have no
     * call waiting and whose buckets are full again; a forgotten tenant starts with full
     * buckets on its next call, as it would have had them anyway.
     */
    private void forgetIdle(String keep) {
        Iterator<Map.Entry<String, BucketSet>> eldest = this.buckets.entrySet().iterator();
        while (this.buckets.size() > this.maxTracked && eldest.hasNext()) {
            Map.Entry<String, BucketSet> entry = eldest.next();
            if (!entry.getKey().equals(keep) && !this.inUse.test(entry.getKey()) && entry.getValue().isFull()) {
                entry.getValue().forget();
                eldest.remove();
            }
        }
    }

    /** Forgets every tenant. */
    void forgetAll() {
        this.buckets.values().forEach(BucketSet::forget);
        this.buckets.clear();
    }

}
