package io.github.llmthrottle.observation;

import java.time.Duration;
import java.util.Locale;

import io.github.llmthrottle.observation.LlmThrottleObservationDocumentation.HighCardinalityKeyNames;
import io.github.llmthrottle.observation.LlmThrottleObservationDocumentation.LowCardinalityKeyNames;
import io.github.llmthrottle.provider.Usage;
import io.micrometer.common.KeyValues;

/**
 * The default shape of the {@code llm.throttle.attempt} observation: named
 * {@code llm.throttle.attempt}, contextual name {@code llm attempt MODEL},
 * low-cardinality keys {@code client}, {@code model}, {@code priority} and
 * {@code outcome} (always all four), high-cardinality keys for the attempt number, the
 * queue wait and back-off before it (seconds), the HTTP status, the provider's request id
 * and the tokens when there are any.
 */
public class DefaultLlmThrottleAttemptObservationConvention implements LlmThrottleAttemptObservationConvention {

    /** The name of the observation, and of the timer Spring Boot makes of it. */
    public static final String NAME = "llm.throttle.attempt";

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(LlmThrottleAttemptObservationContext context) {
        return "llm attempt " + context.getModel();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(LlmThrottleAttemptObservationContext context) {
        String outcome = context.getOutcome();
        return KeyValues.of(LowCardinalityKeyNames.CLIENT.withValue(context.getClient()),
                LowCardinalityKeyNames.MODEL.withValue(context.getModel()),
                LowCardinalityKeyNames.PRIORITY.withValue(context.getPriority().name().toLowerCase(Locale.ROOT)),
                LowCardinalityKeyNames.OUTCOME
                    .withValue((outcome != null) ? outcome : DefaultLlmThrottleCallObservationConvention.UNKNOWN));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(LlmThrottleAttemptObservationContext context) {
        KeyValues values = KeyValues.of(
                HighCardinalityKeyNames.ATTEMPT_NUMBER.withValue(Integer.toString(context.getAttempt())),
                HighCardinalityKeyNames.QUEUE_WAIT.withValue(seconds(context.getQueueWait())));
        Duration backOff = context.getBackOff();
        if (backOff != null) {
            values = values.and(HighCardinalityKeyNames.BACK_OFF.withValue(seconds(backOff)));
        }
        if (context.getStatus() > 0) {
            values = values.and(HighCardinalityKeyNames.STATUS.withValue(Integer.toString(context.getStatus())));
        }
        String requestId = context.getRequestId();
        if (requestId != null) {
            values = values.and(HighCardinalityKeyNames.REQUEST_ID.withValue(requestId));
        }
        Usage usage = context.getUsage();
        if (usage != null) {
            values = values.and(HighCardinalityKeyNames.INPUT_TOKENS.withValue(Long.toString(usage.inputTokens())),
                    HighCardinalityKeyNames.OUTPUT_TOKENS.withValue(Long.toString(usage.outputTokens())));
        }
        return values;
    }

    /** Seconds with millisecond precision, as span attributes show them. */
    private static String seconds(Duration duration) {
        return String.format(Locale.ROOT, "%.3f", duration.toNanos() / 1e9);
    }

}
