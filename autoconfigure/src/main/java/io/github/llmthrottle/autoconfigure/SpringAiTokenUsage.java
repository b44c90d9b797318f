package io.github.llmthrottle.autoconfigure;

import io.github.llmthrottle.autoconfigure.LlmThrottleMetricsProperties.TokenUsage;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Whether llm-throttle publishes {@code gen_ai.client.token.usage}. Spring AI's chat
 * model observations publish a counter of that name for every {@code ChatModel} call
 * (through its {@code ChatModelMeterObservationHandler} bean); a histogram of the same
 * name beside it would be refused by Prometheus (one name, one type), and a
 * {@code ChatClient} call, which llm-throttle throttles too, would be counted by both.
 * Refers to no Spring AI class itself, so that it loads without Spring AI.
 */
final class SpringAiTokenUsage {

    private static final Log logger = LogFactory.getLog(SpringAiTokenUsage.class);

    static final String METER_HANDLER = "org.springframework.ai.chat.observation.ChatModelMeterObservationHandler";

    private SpringAiTokenUsage() {
    }

    /**
     * Whether llm-throttle publishes {@code gen_ai.client.token.usage}.
     * @param mode what {@code llm.throttle.metrics.gen-ai.token-usage} says
     * @param beanFactory the application's beans
     * @param classLoader the application's class loader
     * @return {@code true} to publish it
     */
    static boolean publishedByLlmThrottle(TokenUsage mode, ListableBeanFactory beanFactory,
            @Nullable ClassLoader classLoader) {
        return switch (mode) {
            case ALWAYS -> true;
            case NEVER -> false;
            case DETECT -> {
                boolean springAi = publishedBySpringAi(beanFactory, classLoader);
                if (springAi) {
                    logger.info("Spring AI's chat model observations publish gen_ai.client.token.usage: "
                            + "llm-throttle leaves that meter to them and publishes its other GenAI metrics "
                            + "(llm.throttle.metrics.gen-ai.token-usage=always publishes its own instead; "
                            + "then turn Spring AI's off)");
                }
                yield !springAi;
            }
        };
    }

    private static boolean publishedBySpringAi(ListableBeanFactory beanFactory, @Nullable ClassLoader classLoader) {
        if (!ClassUtils.isPresent(METER_HANDLER, classLoader)) {
            return false;
        }
        Class<?> handler = ClassUtils.resolveClassName(METER_HANDLER, classLoader);
        return beanFactory.getBeanNamesForType(handler, false, false).length > 0;
    }

}
