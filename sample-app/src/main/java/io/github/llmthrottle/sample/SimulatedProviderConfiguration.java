package io.github.llmthrottle.sample;

import io.github.llmthrottle.test.LlmSimulator;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Runs the embedded simulated provider for as long as the application runs.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("sample.simulator.enabled")
class SimulatedProviderConfiguration {

    @Bean(destroyMethod = "close")
    LlmSimulator llmSimulator(@Value("${sample.simulator.port}") int port) {
        return SimulatedProvider.start(port);
    }

}
