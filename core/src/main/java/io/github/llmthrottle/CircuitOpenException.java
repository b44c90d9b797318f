package io.github.llmthrottle;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when the circuit of a model is open after consecutive overload, server or
 * connection failures.
 */
public class CircuitOpenException extends LlmThrottleException {

    public CircuitOpenException(String client, String model, @Nullable Duration retryAfter) {
        super("Circuit open for " + describe(client, model) + retryHint(retryAfter), client, model, retryAfter, null);
    }

    @Override
    public RejectionReason getRejectionReason() {
        return RejectionReason.CIRCUIT_OPEN;
    }

}
