package io.github.llmthrottle.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the llmThrottle health indicator ({@code llm.throttle.health.*}), used when
 * Spring Boot's health support is on the classpath.
 */
@ConfigurationProperties("llm.throttle.health")
public class LlmThrottleHealthProperties {

    /**
     * How long after a 429 or a 529 a model is still reported as provider throttling or
     * provider overloaded.
     */
    private Duration signalWindow = Duration.ofMinutes(1);

    public Duration getSignalWindow() {
        return this.signalWindow;
    }

    public void setSignalWindow(Duration signalWindow) {
        this.signalWindow = signalWindow;
    }

}
