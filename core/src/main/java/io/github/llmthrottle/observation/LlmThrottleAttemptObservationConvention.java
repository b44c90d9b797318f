package io.github.llmthrottle.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Shapes the {@code llm.throttle.attempt} observation: its name, contextual name and
 * keys. Declare a bean of this type to replace
 * {@link DefaultLlmThrottleAttemptObservationConvention} (extend it to add keys); keep
 * the same low-cardinality keys for every outcome.
 */
public interface LlmThrottleAttemptObservationConvention
        extends ObservationConvention<LlmThrottleAttemptObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof LlmThrottleAttemptObservationContext;
    }

}
