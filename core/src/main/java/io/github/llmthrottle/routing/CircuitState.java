package io.github.llmthrottle.routing;

/**
 * State of the circuit of one client and model, as Resilience4j names them.
 */
public enum CircuitState {

    /** Calls flow normally. */
    CLOSED,

    /**
     * Consecutive overload, server or connection failures: calls fail fast until the wait
     * ends.
     */
    OPEN,

    /** After the wait: a few probe calls decide whether to close or open again. */
    HALF_OPEN

}
