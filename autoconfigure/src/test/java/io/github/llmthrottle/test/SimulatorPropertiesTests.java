package io.github.llmthrottle.test;

import java.util.List;
import java.util.Map;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link SimulatorProperties} from a {@code @DynamicPropertySource} method of a
 * {@code @SpringBootTest}: both clients reach their simulator, through the throttling.
 */
@SpringBootTest(classes = SimulatorPropertiesTests.Application.class,
        properties = { "llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.api-key=test-key", "llm.throttle.clients.openai.provider=openai",
                "llm.throttle.clients.openai.api-key=test-key" })
class SimulatorPropertiesTests {

    private static final LlmSimulator anthropicSimulator = LlmSimulator.builder().noLatency().start();

    private static final LlmSimulator openAiSimulator = LlmSimulator.builder().noLatency().start();

    @Autowired
    private Environment environment;

    @Autowired
    private LlmThrottleRegistry registry;

    @DynamicPropertySource
    static void simulators(DynamicPropertyRegistry registry) {
        SimulatorProperties.anthropic(registry, "anthropic", anthropicSimulator);
        SimulatorProperties.openAi(registry, "openai", openAiSimulator);
    }

    @AfterAll
    static void stop() {
        anthropicSimulator.close();
        openAiSimulator.close();
    }

    @Test
    void clientsAndSpringAiPointAtTheSimulators() {
        assertThat(this.environment.getProperty("llm.throttle.clients.anthropic.base-url"))
            .isEqualTo(anthropicSimulator.baseUrl());
        assertThat(this.environment.getProperty("spring.ai.anthropic.base-url"))
            .isEqualTo(anthropicSimulator.baseUrl());
        assertThat(this.environment.getProperty("llm.throttle.clients.openai.base-url"))
            .isEqualTo(openAiSimulator.openAiBaseUrl());
        assertThat(this.environment.getProperty("spring.ai.openai.base-url"))
            .isEqualTo(openAiSimulator.openAiBaseUrl());
    }

    @Test
    void callsOfBothClientsReachTheirSimulatorThrottled(@Qualifier("anthropicRestClient") RestClient anthropic,
            @Qualifier("openaiRestClient") RestClient openAi) {
        anthropic.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body(Map.of("model", "claude-sonnet-4-5", "max_tokens", 10, "messages",
                    List.of(Map.of("role", "user", "content", "Hello"))))
            .retrieve()
            .toBodilessEntity();
        openAi.post()
            .uri("/chat/completions")
            .contentType(MediaType.APPLICATION_JSON)
            .body(Map.of("model", "gpt-4o-mini", "max_tokens", 10, "messages",
                    List.of(Map.of("role", "user", "content", "Hello"))))
            .retrieve()
            .toBodilessEntity();
        assertThat(anthropicSimulator.stats("claude-sonnet-4-5").successes()).isEqualTo(1);
        assertThat(openAiSimulator.stats("gpt-4o-mini").successes()).isEqualTo(1);
        assertThat(this.registry.getClient("anthropic").model("claude-sonnet-4-5").getTotals().snapshot().succeeded())
            .isEqualTo(1);
        assertThat(this.registry.getClient("openai").model("gpt-4o-mini").getTotals().snapshot().succeeded())
            .isEqualTo(1);
    }

    @Test
    void aClientNameThatIsNotAKeyIsRejected() {
        assertThatIllegalArgumentException().isThrownBy(() -> SimulatorProperties.anthropic((name, value) -> {
        }, "clients.anthropic", anthropicSimulator)).withMessageContaining("'clients.anthropic'");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
            LlmThrottleAutoConfiguration.class })
    static class Application {

    }

}
