package io.github.llmthrottle.routing;

import java.time.Duration;

import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.retry.Classification.Outcome;
import org.jspecify.annotations.Nullable;

/**
 * The state of one model's circuit kept outside this JVM and shared by every instance
 * ({@link CircuitStore}): the same state machine as {@link ModelCircuit}'s, its state,
 * failure count and half-open probes held by the store. A {@link ModelCircuit} with a
 * shared circuit asks it first and decides alone only while it answers {@code null}
 * (cannot be reached).
 *
 * <p>
 * No method waits for the store, except {@link #acquire()} while the circuit is (or may
 * be) half-open, or before the first answer: a probe is granted by the store, so that at
 * most {@link CircuitSettings#halfOpenProbes()} go out across the fleet; that wait is
 * bounded by the store's timeout.
 */
public interface SharedCircuit {

    /**
     * Lets one attempt through, or refuses it.
     * @return the grant, or {@code null} when the shared state cannot be had now (the
     * local circuit decides)
     * @throws CircuitOpenException when the circuit is open, or half-open with every
     * probe place of the fleet taken
     */
    @Nullable Grant acquire();

    /**
     * Records how a granted attempt ended (sent without waiting).
     * @param grant the grant of the attempt
     * @param outcome its outcome, {@code null} when it ended without one (not sent, or no
     * response)
     */
    void complete(Grant grant, @Nullable Outcome outcome);

    /**
     * What the store last said of the circuit, as of now (an open circuit whose wait is
     * over is half-open); asks it again in the background when that is old.
     * @return the state, or {@code null} when it is not known or the store cannot be
     * reached (the local circuit's state then holds)
     */
    @Nullable View view();

    /**
     * One attempt let through by the shared circuit.
     *
     * @param epoch the shared circuit's count of changes of state when it was granted:
     * the outcome of an attempt granted before the last change is ignored
     * @param probe whether it is a half-open probe
     * @param token the probe's name in the store (empty when not a probe)
     */
    record Grant(long epoch, boolean probe, String token) {
    }

    /**
     * The shared circuit's state.
     *
     * @param state the state
     * @param consecutiveFailures the consecutive failures counted while closed
     * @param remainingOpen the rest of the open wait, {@code null} when not open
     * @param probeFree whether a probe place is free while half-open
     */
    record View(CircuitState state, int consecutiveFailures, @Nullable Duration remainingOpen, boolean probeFree) {
    }

}
