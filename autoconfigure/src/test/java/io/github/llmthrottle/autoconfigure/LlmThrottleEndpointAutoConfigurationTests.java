package io.github.llmthrottle.autoconfigure;

import java.time.Duration;

import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.actuate.CircuitStateSource;
import io.github.llmthrottle.actuate.LlmThrottleEndpoint;
import io.github.llmthrottle.actuate.LlmThrottleEndpointWebExtension;
import io.github.llmthrottle.routing.CircuitState;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

class LlmThrottleEndpointAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                LlmThrottleAutoConfiguration.class, LlmThrottleEndpointAutoConfiguration.class))
        .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.api-key=sk-secret",
                "llm.throttle.clients.anthropic.models.opus.requests-per-minute=50");

    @Test
    void exposedEndpointRegistersTheEndpointAndItsWebExtension() {
        this.runner.withPropertyValues("management.endpoints.web.exposure.include=llmthrottle").run((context) -> {
            assertThat(context).hasSingleBean(LlmThrottleEndpoint.class);
            assertThat(context).hasSingleBean(LlmThrottleEndpointWebExtension.class);
            LlmThrottleEndpoint endpoint = context.getBean(LlmThrottleEndpoint.class);
            assertThat(endpoint.clients(SecurityContext.NONE).clients()).containsOnlyKeys("anthropic");
            assertThat(endpoint.model("anthropic", "opus").circuit()).isEqualTo(CircuitState.CLOSED);
            assertThat(endpoint.model("anthropic", "unknown")).isNull();
        });
    }

    @Test
    void resetEndsAModelWidePause() {
        this.runner.withPropertyValues("management.endpoints.web.exposure.include=llmthrottle").run((context) -> {
            LlmThrottleEndpoint endpoint = context.getBean(LlmThrottleEndpoint.class);
            context.getBean(LlmThrottleRegistry.class)
                .getClient("anthropic")
                .model("opus")
                .getLimiter()
                .pause(Duration.ofMinutes(10));
            assertThat(endpoint.model("anthropic", "opus").pausedUntil()).isNotNull();
            assertThat(endpoint.updateLimits("anthropic", "opus", null, null, null, null, true).pausedUntil()).isNull();
        });
    }

    @Test
    void endpointThatIsNotExposedIsNotRegistered() {
        this.runner.run((context) -> assertThat(context).doesNotHaveBean(LlmThrottleEndpoint.class));
    }

    @Test
    void withoutActuatorNothingIsRegistered() {
        this.runner.withPropertyValues("management.endpoints.web.exposure.include=llmthrottle")
            .withClassLoader(new FilteredClassLoader(Endpoint.class))
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LlmThrottleEndpoint.class));
        this.runner.withPropertyValues("management.endpoints.web.exposure.include=llmthrottle")
            .withClassLoader(new FilteredClassLoader(ConditionalOnAvailableEndpoint.class))
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LlmThrottleEndpoint.class));
    }

    @Test
    void disabledLlmThrottleHasNoEndpoint() {
        this.runner
            .withPropertyValues("management.endpoints.web.exposure.include=llmthrottle", "llm.throttle.enabled=false")
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LlmThrottleEndpoint.class));
    }

    @Test
    void circuitStateSourceBeanReportsTheCircuit() {
        this.runner.withPropertyValues("management.endpoints.web.exposure.include=llmthrottle")
            .withUserConfiguration(OpenCircuits.class)
            .run((context) -> assertThat(
                    context.getBean(LlmThrottleEndpoint.class).model("anthropic", "opus").circuit())
                .isEqualTo(CircuitState.OPEN));
    }

    @Configuration(proxyBeanMethods = false)
    static class OpenCircuits {

        @Bean
        CircuitStateSource openCircuits() {
            return (model) -> CircuitState.OPEN;
        }

    }

}
