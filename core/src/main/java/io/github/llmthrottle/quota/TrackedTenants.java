package io.github.llmthrottle.quota;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * The tenants named in requests lately, at most {@code llm.throttle.max-tracked-names} of
 * them, the least recently used forgotten beyond: those whose quotas and budgets the
 * endpoint and gauges show besides the tenants configured with limits of their own.
 * {@link TokenQuotas} and {@link io.github.llmthrottle.budget.Budgets} each keep one and
 * forget the counters of the tenant it gives up.
 */
public final class TrackedTenants {

    private final int maxTrackedTenants;

    private final ReentrantLock lock = new ReentrantLock();

    /** Tenants seen lately, most recently used last. */
    private final LinkedHashMap<String, Boolean> tenants = new LinkedHashMap<>(16, 0.75f, true);

    /** Changed each time a tenant starts or stops being tracked. */
    private volatile long version;

    /**
     * Creates an empty set of tracked tenants.
     * @param maxTrackedTenants most tenants tracked at once, the least recently used
     * forgotten beyond
     */
    public TrackedTenants(int maxTrackedTenants) {
        if (maxTrackedTenants < 1) {
            throw new IllegalArgumentException("maxTrackedTenants must be at least 1, was " + maxTrackedTenants);
        }
        this.maxTrackedTenants = maxTrackedTenants;
    }

    /**
     * Marks a tenant as seen now.
     * @param tenant the tenant
     * @return the least recently used tenant given up to make room for it, or
     * {@code null} when none was
     */
    public @Nullable String track(String tenant) {
        this.lock.lock();
        try {
            if (this.tenants.put(tenant, Boolean.TRUE) == null) {
                this.version++;
            }
            if (this.tenants.size() > this.maxTrackedTenants) {
                String forgotten = this.tenants.keySet().iterator().next();
                this.tenants.remove(forgotten);
                return forgotten;
            }
            return null;
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * The tenants to show: the configured ones first, then those seen lately.
     * @param configured the tenants with limits of their own
     * @return the tenants, each once
     */
    public List<String> withConfigured(Collection<String> configured) {
        List<String> tenants = new ArrayList<>(configured);
        this.lock.lock();
        try {
            this.tenants.keySet().stream().filter((tenant) -> !tenants.contains(tenant)).forEach(tenants::add);
        }
        finally {
            this.lock.unlock();
        }
        return tenants;
    }

    /**
     * A number that changes each time a tenant starts or stops being tracked.
     * @return the version of the tracked tenants
     */
    public long version() {
        return this.version;
    }

}
