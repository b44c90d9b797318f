package io.github.llmthrottle.routing;

import java.time.Duration;
import java.util.Objects;

/**
 * The validated settings of every model's circuit ({@code llm.throttle.circuit.*}).
 *
 * @param enabled whether circuits open at all; when false every circuit stays
 * {@link CircuitState#CLOSED}
 * @param failureThreshold consecutive failing attempts (overloaded, 5xx, 408, I/O errors) that
 * open the circuit
 * @param openWait how long an open circuit fails calls fast before it lets probes through
 * @param halfOpenProbes calls let through at once while half-open; that many successful probes
 * close the circuit
 */
public record CircuitSettings(boolean enabled, int failureThreshold, Duration openWait, int halfOpenProbes) {

    /** The defaults: enabled, 5 consecutive failures, 30 s open, 2 probes. */
    public static final CircuitSettings DEFAULTS = new CircuitSettings(true, 5, Duration.ofSeconds(30), 2);

    public CircuitSettings {
        Objects.requireNonNull(openWait, "openWait");
        if (failureThreshold < 1) {
            throw new IllegalArgumentException("failureThreshold must be at least 1, was " + failureThreshold);
        }
        if (openWait.isNegative()) {
            throw new IllegalArgumentException("openWait must not be negative, was " + openWait);
        }
        if (halfOpenProbes < 1) {
            throw new IllegalArgumentException("halfOpenProbes must be at least 1, was " + halfOpenProbes);
        }
    }

}
