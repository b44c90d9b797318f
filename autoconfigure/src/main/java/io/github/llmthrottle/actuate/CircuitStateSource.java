package io.github.llmthrottle.actuate;

import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.routing.CircuitState;

/**
 * Where the endpoint and the health indicator read the circuit of a client and model from.
 * Register a bean of this type to report the circuit; without one every circuit shows
 * {@link CircuitState#CLOSED} ({@link #DEFAULT}).
 */
@FunctionalInterface
public interface CircuitStateSource {

    /**
     * The circuit state used when no {@link CircuitStateSource} bean exists.
     */
    // Once ThrottledModel carries its circuit, this becomes (model) -> model.getCircuit().state().
    CircuitStateSource DEFAULT = (model) -> CircuitState.CLOSED;

    /**
     * The state of the circuit of {@code model} now.
     * @param model the client's model
     * @return its circuit state
     */
    CircuitState stateOf(ThrottledModel model);

}
