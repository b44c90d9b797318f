package io.github.llmthrottle.benchmarks.springai;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Configuration;

/**
 * The applications the Spring AI contenders start: every auto-configuration on the
 * classpath (Spring AI's Anthropic starter, Boot's HTTP client and {@code RestClient},
 * llm-throttle's starter), as in an application that adds the starters, with or without
 * llm-throttle's.
 */
final class SpringAiApplication {

    private SpringAiApplication() {
    }

    /** Spring AI's Anthropic model and {@code ChatClient}, throttled by llm-throttle. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class WithLlmThrottle {

    }

    /**
     * The same without llm-throttle, as if its starter were not there: the other
     * llm-throttle auto-configurations back off without its registry.
     */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration(excludeName = { "io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration",
            "io.github.llmthrottle.springai.autoconfigure.LlmThrottleSpringAiAutoConfiguration" })
    static class WithoutLlmThrottle {

    }

}
