package io.github.llmthrottle.store.redis;

import io.github.llmthrottle.routing.CircuitSettings;
import io.github.llmthrottle.routing.CircuitStore;
import io.github.llmthrottle.routing.ModelCircuit;
import io.github.llmthrottle.time.TimeSource;

/**
 * Circuits shared by every instance that uses the same Redis server
 * ({@code llm.throttle.store=redis}), on the connection of a {@link RedisBucketStore}: a
 * circuit opened by one instance is open on all, and its half-open probes are limited
 * across the fleet ({@link RedisCircuit}, {@link RedisCircuitScript}). While Redis cannot
 * be reached (the bucket store's outage, as {@link RedisConnector} describes, whatever
 * its {@code on-failure}) each instance's own circuit decides, as with
 * {@link CircuitStore#LOCAL}. Circuits that never open
 * ({@code llm.throttle.circuit.enabled:
 * false}) are local.
 */
public final class RedisCircuitStore implements CircuitStore {

    private final RedisBucketStore store;

    /**
     * Creates a store on the connection of a bucket store.
     * @param store the bucket store whose connection, key prefix and time it uses
     */
    public RedisCircuitStore(RedisBucketStore store) {
        this.store = store;
    }

    @Override
    public ModelCircuit circuit(String client, String model, CircuitSettings settings, TimeSource timeSource) {
        if (!settings.enabled()) {
            return new ModelCircuit(client, model, settings, timeSource);
        }
        return new ModelCircuit(client, model, settings, timeSource,
                new RedisCircuit(this.store, client, model, settings, timeSource));
    }

    @Override
    public String toString() {
        return "RedisCircuitStore[" + this.store + "]";
    }

}
