package io.github.llmthrottle.routing;

import java.time.Duration;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import org.jspecify.annotations.Nullable;

/**
 * One model a {@link ModelRouter} may send an invocation to: its circuit, an estimate of
 * how long a call would wait for admission, and where to report that the router went
 * elsewhere.
 */
public interface RouteCandidate {

    /**
     * The model name.
     * @return the model
     */
    String model();

    /**
     * The model's circuit.
     * @return the circuit
     */
    ModelCircuit circuit();

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
     * The router refused this model before calling it (open circuit, or a wait above
     * max-wait).
     * @param rejection why, as the caller would have seen it
     */
    default void rejected(LlmThrottleException rejection) {
    }

    /**
     * The router went from this model to the next candidate.
     * @param to the model tried next
     * @param cause the throttling failure that made it move on
     */
    default void routedAway(String to, LlmThrottleException cause) {
    }

}
