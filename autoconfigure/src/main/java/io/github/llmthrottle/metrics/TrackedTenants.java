package io.github.llmthrottle.metrics;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * The tenants that have meter series of their own, per client, the least recently used
 * first: at most a bounded number ({@code llm.throttle.max-tracked-names}), so that a
 * {@code tenant} tag cannot grow the series without bound. Thread-safe.
 */
final class TrackedTenants {

    private final int max;

    private final ReentrantLock lock = new ReentrantLock();

    private final Map<String, LinkedHashMap<String, Boolean>> byClient = new HashMap<>();

    TrackedTenants(int max) {
        this.max = max;
    }

    /**
     * Records that {@code tenant} of {@code client} has an event now.
     * @param client the client
     * @param tenant the tenant
     * @return the tenant of the client forgotten to make room, whose series are to go, or
     * {@code null}
     */
    @Nullable String use(String client, String tenant) {
        this.lock.lock();
        try {
            LinkedHashMap<String, Boolean> tenants = this.byClient.computeIfAbsent(client,
                    (name) -> new LinkedHashMap<>(16, 0.75f, true));
            tenants.put(tenant, Boolean.TRUE);
            if (tenants.size() <= this.max) {
                return null;
            }
            Iterator<String> eldest = tenants.keySet().iterator();
            String forgotten = eldest.next();
            eldest.remove();
            return forgotten;
        }
        finally {
            this.lock.unlock();
        }
    }

}
