package io.github.llmthrottle.routing;

import io.github.llmthrottle.time.TimeSource;

/**
 * Where the circuits of the models live: {@link #LOCAL} keeps each in this JVM; a shared
 * store ({@code RedisCircuitStore}, with {@code llm.throttle.store=redis}) gives every
 * {@link ModelCircuit} a {@link SharedCircuit} so that a circuit opened by one instance
 * is open on all, and falls back to the local circuit while the shared one cannot be
 * reached.
 */
@FunctionalInterface
public interface CircuitStore {

    /** Every circuit in this JVM alone. */
    CircuitStore LOCAL = ModelCircuit::new;

    /**
     * Creates the circuit of one client and model (or deployment,
     * {@code MODEL@DEPLOYMENT}).
     * @param client the client name
     * @param model the model name
     * @param settings when to open and how to probe
     * @param timeSource the time source
     * @return a closed circuit, or the shared circuit's state as the store knows it
     */
    ModelCircuit circuit(String client, String model, CircuitSettings settings, TimeSource timeSource);

}
