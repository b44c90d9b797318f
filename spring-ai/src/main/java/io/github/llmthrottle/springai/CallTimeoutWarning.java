package io.github.llmthrottle.springai;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Tells the user at startup, once, when a Spring AI model's timeout
 * ({@code spring.ai.anthropic.timeout}, {@code spring.ai.openai.timeout}) is too short
 * for llm-throttle's queue: Spring AI makes it OkHttp's call timeout, whose timer also
 * counts the wait for admission and between retries, and llm-throttle keeps a quarter of
 * it for the response. A call whose wait cannot fit then fails early with a message that
 * says so ({@link io.github.llmthrottle.AdmissionTimeoutException},
 * {@link io.github.llmthrottle.RetriesExhaustedException}), well before
 * {@code llm.throttle.queue.max-wait}.
 */
public final class CallTimeoutWarning implements InitializingBean {

    private static final Log logger = LogFactory.getLog(CallTimeoutWarning.class);

    private final Environment environment;

    private final String property;

    private final Duration maxWait;

    /**
     * Creates the warning.
     * @param environment the environment
     * @param property the model's timeout property, e.g.
     * {@code spring.ai.anthropic.timeout}
     * @param maxWait {@code llm.throttle.queue.max-wait}
     */
    public CallTimeoutWarning(Environment environment, String property, Duration maxWait) {
        this.environment = environment;
        this.property = property;
        this.maxWait = maxWait;
    }

    @Override
    public void afterPropertiesSet() {
        Duration timeout = Binder.get(this.environment).bind(this.property, Duration.class).orElse(null);
        if (timeout == null || timeout.isZero() || timeout.isNegative()) {
            return;
        }
        Duration forWaiting = timeout.dividedBy(4).multipliedBy(3);
        if (this.maxWait.compareTo(forWaiting) > 0) {
            logger.warn(this.property + "=" + timeout + " is OkHttp's call timeout, which counts the wait for "
                    + "admission and between retries: llm-throttle keeps a quarter of it for the response, so calls "
                    + "wait at most " + forWaiting + ", not llm.throttle.queue.max-wait=" + this.maxWait
                    + ", and fail early when they cannot fit. Set " + this.property + " above max-wait / 0.75 ("
                    + this.maxWait.multipliedBy(4).dividedBy(3) + ") plus the retries' waits");
        }
    }

}
