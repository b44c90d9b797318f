package io.github.llmthrottle.routing;

import java.time.Duration;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import org.jspecify.annotations.Nullable;

/**
 * One model a {@link ModelRouter} may send an invocation to: its client, context window
 * and circuit, an estimate of how long a call would wait for admission, and where to
 * report that the router went elsewhere.
 */
public interface RouteCandidate {

    /**
     * The model name.
     * @return the model
     */
    String model();

    /**
     * The client of the model, when it is not the router's own (a fallback to another
     * provider).
     * @return the client, or {@code null} for the router's client
     */
    default @Nullable String client() {
        return null;
    }

    /**
     * The model's context window.
     * @return the window in tokens, or {@code null} when none is configured
     */
    default @Nullable Long contextWindow() {
        return null;
    }

    /**
     * The model's circuit.
     * @return the circuit
     */
    ModelCircuit circuit();

    /**
     * Whether a call may go through now: the model's circuit, or for a model served by
     * several deployments, the circuit of any of them.
     * @return whether a call is permitted
     */
    default boolean isCallPermitted() {
        return circuit().isCallPermitted();
    }

    /**
     * How long every call is refused while {@link #isCallPermitted()} is false.
     * @return the remaining open time, or {@code null} when unknown or not open
     */
    default @Nullable Duration remainingOpenTime() {
        return circuit().remainingOpenTime();
    }

    /**
     * How long a typical call of this invocation would wait for admission now.
     * @param priority the invocation's priority
     * @param tenant the invocation's tenant, or {@code null}
     * @param maxWait the longest the invocation may wait
     * @return the estimated wait, or {@code null} when such a call could never be
     * admitted
     */
    @Nullable Duration estimatedWait(Priority priority, @Nullable String tenant, Duration maxWait);

    /**
     * What the model's successful calls used so far, the base of the typical request
     * {@link CheapestRouteOrder} prices.
     * @return the history, {@link TokenHistory#NONE} when unknown
     */
    default TokenHistory history() {
        return TokenHistory.NONE;
    }

    /**
     * The router refused this model before calling it (open circuit, a wait above
     * max-wait, or a context window smaller than the invocation's request).
     * @param rejection why, as the caller would have seen it
     */
    default void rejected(LlmThrottleException rejection) {
    }

    /**
     * Whether a budget in money of a call to this model is nearly spent (more than
     * {@code llm.throttle.budget-warning-share} of it): the router then tries the model
     * after the candidates whose budgets are not.
     * @param tenant the invocation's tenant, or {@code null}
     * @return whether a budget of the model, its client or the tenant is nearly spent
     */
    default boolean isNearBudget(@Nullable String tenant) {
        return false;
    }

    /**
     * The router went from this model to the next candidate.
     * @param to the model tried next
     * @param cause the throttling failure that made it move on
     */
    default void routedAway(String to, LlmThrottleException cause) {
    }

}
