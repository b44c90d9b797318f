package io.github.llmthrottle.sample;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

class SimulatedProviderEnvironmentPostProcessorTests {

    @Test
    void theEndpointGrantsWritesOnlyAgainstTheSimulator() {
        assertThat(postProcessed(Map.of()).getProperty("sample.endpoint-access")).isEqualTo("unrestricted");
        assertThat(postProcessed(Map.of("ANTHROPIC_API_KEY", "sk-ant-real")).getProperty("sample.endpoint-access"))
            .isEqualTo("read-only");
        assertThat(postProcessed(Map.of("OPENAI_API_KEY", "sk-real")).getProperty("sample.endpoint-access"))
            .isEqualTo("read-only");
    }

    @Test
    void theDemoBurstNeverRunsWithARealAnthropicKey() {
        assertThat(postProcessed(Map.of("ANTHROPIC_API_KEY", "sk-ant-real")).getProperty("sample.demo-allowed"))
            .isEqualTo("false");
    }

    private static StandardEnvironment postProcessed(Map<String, Object> properties) {
        StandardEnvironment environment = new StandardEnvironment();
        // the machine's own keys, if any, must not decide
        environment.getPropertySources().remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
        environment.getPropertySources().remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
        environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
        new SimulatedProviderEnvironmentPostProcessor().postProcessEnvironment(environment, new SpringApplication());
        return environment;
    }

}
