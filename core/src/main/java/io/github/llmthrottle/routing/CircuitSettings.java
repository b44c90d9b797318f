package io.github.llmthrottle.routing;

import java.time.Duration;
import java.util.Objects;

/**
 * The validated settings of every model's circuit ({@code llm.throttle.circuit.*}).
 *
 * @param enabled whether circuits open at all; when false every circuit stays
 * {@link CircuitState#CLOSED}
 * @param failureThreshold consecutive failing attempts (overloaded, 5xx, 408, I/O errors)
 * that open the circuit
 * @param openWait how long an open circuit fails calls fast before it lets probes through
 * @param halfOpenProbes calls let through at once while half-open; that many successful
 * probes close the circuit
 */
public record CircuitSettings(boolean enabled, int failureThreshold, Duration openWait, int halfOpenProbes) {

    /** The defaults: enabled, 5 consecutive failures, 30 s open, 2 probes. */
    public static final CircuitSettings DEFAULTS = new CircuitSettings(true, 5, Duration.ofSeconds(30), 2);

    /**
     * Creates settings. Configured values are checked under their property names before
     * they get here; these checks guard settings built in code, which would otherwise
     * open the circuit on a success (a threshold below 1) or never close it again (no
     * probes). A negative open wait acts as zero.
     * @throws IllegalArgumentException naming the first invalid field
     */
    public CircuitSettings {
        Objects.requireNonNull(openWait, "openWait");
        if (failureThreshold < 1) {
            throw new IllegalArgumentException("failureThreshold must be at least 1, was " + failureThreshold);
        }
        if (halfOpenProbes < 1) {
            throw new IllegalArgumentException("halfOpenProbes must be at least 1, was " + halfOpenProbes);
        }
    }

    /**
     * A copy that opens circuits, or not.
     * @param enabled whether circuits open at all
     * @return the new settings
     */
    public CircuitSettings withEnabled(boolean enabled) {
        return new CircuitSettings(enabled, this.failureThreshold, this.openWait, this.halfOpenProbes);
    }

    /**
     * A copy with another number of consecutive failures that open a circuit.
     * @param failureThreshold consecutive failing attempts that open the circuit
     * @return the new settings
     */
    public CircuitSettings withFailureThreshold(int failureThreshold) {
        return new CircuitSettings(this.enabled, failureThreshold, this.openWait, this.halfOpenProbes);
    }

    /**
     * A copy with another time an open circuit waits before it lets probes through.
     * @param openWait how long an open circuit fails calls fast
     * @return the new settings
     */
    public CircuitSettings withOpenWait(Duration openWait) {
        return new CircuitSettings(this.enabled, this.failureThreshold, openWait, this.halfOpenProbes);
    }

    /**
     * A copy with another number of probe calls while half-open.
     * @param halfOpenProbes calls let through at once while half-open
     * @return the new settings
     */
    public CircuitSettings withHalfOpenProbes(int halfOpenProbes) {
        return new CircuitSettings(this.enabled, this.failureThreshold, this.openWait, halfOpenProbes);
    }

}
