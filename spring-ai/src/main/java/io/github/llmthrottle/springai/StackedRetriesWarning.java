package io.github.llmthrottle.springai;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.core.env.Environment;

/**
 * Tells the user at startup, once, that the SDK retries they configured for a Spring AI
 * model ({@code spring.ai.anthropic.max-retries}, {@code spring.ai.openai.max-retries})
 * do not run on top of llm-throttle's: llm-throttle retries the requests it throttles,
 * and every response it hands the SDK says {@code x-should-retry: false}.
 */
public final class StackedRetriesWarning implements InitializingBean {

    private static final Log logger = LogFactory.getLog(StackedRetriesWarning.class);

    private final Environment environment;

    private final String property;

    /**
     * Creates the warning.
     * @param environment the environment
     * @param property the SDK's max-retries property, e.g.
     * {@code spring.ai.anthropic.max-retries}
     */
    public StackedRetriesWarning(Environment environment, String property) {
        this.environment = environment;
        this.property = property;
    }

    @Override
    public void afterPropertiesSet() {
        Integer maxRetries = this.environment.getProperty(this.property, Integer.class);
        if (maxRetries != null && maxRetries > 0) {
            logger.warn(this.property + "=" + maxRetries + " is not applied to requests llm-throttle throttles: "
                    + "llm.throttle.retry (or the client's own retry settings) replaces it, and the SDK is told "
                    + "not to retry (x-should-retry: false), so that a call is retried by one layer only");
        }
    }

}
