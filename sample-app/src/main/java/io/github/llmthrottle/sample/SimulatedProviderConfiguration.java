package io.github.llmthrottle.sample;

import io.github.llmthrottle.test.LlmSimulator;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * Runs the embedded simulated providers for as long as the application runs: the
 * Anthropic one ({@code llmSimulator}, injected where a simulator is asked for by type),
 * the second deployment of Sonnet ({@code sonnetEuSimulator}) and the OpenAI-compatible
 * one ({@code openAiSimulator}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("sample.simulator.enabled")
class SimulatedProviderConfiguration {

    @Bean(destroyMethod = "close")
    @Primary
    LlmSimulator llmSimulator(@Value("${sample.simulator.port}") int port) {
        return SimulatedProvider.start(port);
    }

    @Bean(destroyMethod = "close")
    LlmSimulator sonnetEuSimulator(@Value("${sample.simulator.eu-port}") int port) {
        return SimulatedProvider.startSecondDeployment(port);
    }

    @Bean(destroyMethod = "close")
    LlmSimulator openAiSimulator(@Value("${sample.simulator.openai-port}") int port) {
        return SimulatedProvider.startOpenAi(port);
    }

}
