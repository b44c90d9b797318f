package io.github.llmthrottle.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.github.llmthrottle.actuate.LlmThrottleHealthIndicator;
import io.github.llmthrottle.actuate.ProviderSignals;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

class LlmThrottleHealthAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                LlmThrottleAutoConfiguration.class, LlmThrottleHealthAutoConfiguration.class))
        .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.models.opus.requests-per-minute=50");

    @Test
    void registersAnIndicatorNamedLlmThrottleThatIsUpWithOneEntryPerModel() {
        this.runner.run((context) -> {
            assertThat(context).hasSingleBean(ProviderSignals.class);
            assertThat(context).hasBean("llmThrottleHealthIndicator");
            LlmThrottleHealthIndicator indicator = context.getBean(LlmThrottleHealthIndicator.class);
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
            assertThat(indicator.health().getDetails()).containsOnlyKeys("anthropic");
            assertThat(indicator.health().getDetails().get("anthropic")).asInstanceOf(InstanceOfAssertFactories.MAP)
                .containsOnlyKeys("opus");
        });
    }

    @Test
    void canBeTurnedOffLikeBootsOwnIndicators() {
        this.runner.withPropertyValues("management.health.llmthrottle.enabled=false")
            .run((context) -> assertThat(context).doesNotHaveBean(LlmThrottleHealthIndicator.class)
                .doesNotHaveBean(ProviderSignals.class));
    }

    @Test
    void theSwitchIsInTheConfigurationMetadataAsIdesReadIt() throws IOException {
        List<JsonNode> found = new ArrayList<>();
        JsonMapper json = JsonMapper.builder().build();
        for (URL metadata : Collections
            .list(getClass().getClassLoader().getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = metadata.openStream()) {
                for (JsonNode property : json.readTree(in).path("properties")) {
                    if (property.path("name").asString().equals("management.health.llmthrottle.enabled")) {
                        found.add(property);
                    }
                }
            }
        }
        assertThat(found).singleElement().satisfies((property) -> {
            assertThat(property.path("type").asString()).isEqualTo("java.lang.Boolean");
            assertThat(property.path("defaultValue").asBoolean()).isTrue();
            assertThat(property.path("description").asString()).isNotBlank();
        });
    }

    @Test
    void withoutSpringBootHealthNothingIsRegistered() {
        this.runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
            .run((context) -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(LlmThrottleHealthIndicator.class)
                .doesNotHaveBean(ProviderSignals.class));
    }

    @Test
    void disabledLlmThrottleHasNoIndicator() {
        this.runner.withPropertyValues("llm.throttle.enabled=false")
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LlmThrottleHealthIndicator.class));
    }

}
