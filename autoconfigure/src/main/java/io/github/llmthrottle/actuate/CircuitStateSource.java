package io.github.llmthrottle.actuate;

import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.routing.CircuitState;

/**
 * Where the endpoint and the health indicator read the circuit of a client and model
 * from: by default the model's own {@link io.github.llmthrottle.routing.ModelCircuit}
 * ({@link #DEFAULT}); a bean of this type replaces it (tests use that to show open
 * circuits).
 */
@FunctionalInterface
public interface CircuitStateSource {

    /**
     * The circuit state used when no {@link CircuitStateSource} bean exists: the model's
     * circuit.
     */
    CircuitStateSource DEFAULT = (model) -> model.getCircuit().state();

    /**
     * The state of the circuit of {@code model} now.
     * @param model the client's model
     * @return its circuit state
     */
    CircuitState stateOf(ThrottledModel model);

}
