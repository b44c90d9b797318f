package io.github.llmthrottle.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Shapes the {@code llm.throttle.call} observation: its name, contextual name and keys.
 * Declare a bean of this type to replace
 * {@link DefaultLlmThrottleCallObservationConvention} (extend it to add keys); keep the
 * same low-cardinality keys for every outcome.
 */
public interface LlmThrottleCallObservationConvention extends ObservationConvention<LlmThrottleCallObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof LlmThrottleCallObservationContext;
    }

}
