package io.github.llmthrottle.observation;

import java.util.Locale;

import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.observation.LlmThrottleObservationDocumentation.HighCardinalityKeyNames;
import io.github.llmthrottle.observation.LlmThrottleObservationDocumentation.LowCardinalityKeyNames;
import io.github.llmthrottle.provider.Usage;
import io.micrometer.common.KeyValues;

/**
 * The default shape of the {@code llm.throttle.call} observation: named
 * {@code llm.throttle.call}, contextual name {@code llm call MODEL}, low-cardinality keys
 * {@code client}, {@code model}, {@code priority} and {@code outcome} (always all four),
 * high-cardinality keys for the provider's request id, the tokens, the number of attempts
 * and the reason of a rejection when there are any.
 */
public class DefaultLlmThrottleCallObservationConvention implements LlmThrottleCallObservationConvention {

    /** The name of the observation, and of the timer Spring Boot makes of it. */
    public static final String NAME = "llm.throttle.call";

    static final String UNKNOWN = "unknown";

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(LlmThrottleCallObservationContext context) {
        return "llm call " + context.getModel();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(LlmThrottleCallObservationContext context) {
        String outcome = context.getOutcome();
        return KeyValues.of(LowCardinalityKeyNames.CLIENT.withValue(context.getClient()),
                LowCardinalityKeyNames.MODEL.withValue(context.getModel()),
                LowCardinalityKeyNames.PRIORITY.withValue(context.getPriority().name().toLowerCase(Locale.ROOT)),
                LowCardinalityKeyNames.OUTCOME.withValue((outcome != null) ? outcome : UNKNOWN));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(LlmThrottleCallObservationContext context) {
        KeyValues values = KeyValues
            .of(HighCardinalityKeyNames.ATTEMPTS.withValue(Integer.toString(context.getAttempts())));
        String requestId = context.getRequestId();
        if (requestId != null) {
            values = values.and(HighCardinalityKeyNames.REQUEST_ID.withValue(requestId));
        }
        Usage usage = context.getUsage();
        if (usage != null) {
            values = values.and(HighCardinalityKeyNames.INPUT_TOKENS.withValue(Long.toString(usage.inputTokens())),
                    HighCardinalityKeyNames.OUTPUT_TOKENS.withValue(Long.toString(usage.outputTokens())));
        }
        RejectionReason rejection = context.getRejection();
        if (rejection != null) {
            values = values.and(HighCardinalityKeyNames.REJECTION.withValue(rejection.tag()));
        }
        return values;
    }

}
