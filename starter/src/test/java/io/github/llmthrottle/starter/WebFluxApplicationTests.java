package io.github.llmthrottle.starter;

import java.time.Duration;

import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.test.LlmSimulator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.context.reactive.ReactiveWebApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A WebFlux application with only the starter, {@code spring-boot-starter-webflux} and
 * {@code spring-boot-starter-webclient}, and properties: its {@code WebClient}s, the
 * client's own and one from Boot's builder, are throttled with no code.
 */
@SpringBootTest(classes = WebFluxApplicationTests.Application.class,
        properties = { "spring.main.web-application-type=reactive", "server.port=0",
                "llm.throttle.clients.anthropic.provider=anthropic", "llm.throttle.clients.anthropic.api-key=key" })
class WebFluxApplicationTests {

    private static final String MODEL = "claude-sonnet-4-5";

    private static final LlmSimulator simulator = LlmSimulator.builder().outputTokens(40).noLatency().start();

    @Autowired
    private ApplicationContext context;

    @Autowired
    @Qualifier("anthropicWebClient")
    private WebClient anthropic;

    @Autowired
    private WebClient.Builder builder;

    @Autowired
    private LlmThrottleRegistry registry;

    @DynamicPropertySource
    static void provider(DynamicPropertyRegistry properties) {
        properties.add("llm.throttle.clients.anthropic.base-url", simulator::baseUrl);
    }

    @AfterAll
    static void stop() {
        simulator.close();
    }

    @Test
    void theApplicationIsReactiveAndItsWebClientsAreThrottled() {
        assertThat(this.context).isInstanceOf(ReactiveWebApplicationContext.class);
        call(this.anthropic);
        call(this.builder.clone().baseUrl(simulator.baseUrl()).defaultHeader("x-api-key", "key").build());
        ThrottledClient client = this.registry.getClient("anthropic");
        assertThat(client).isNotNull();
        ModelTotals.Snapshot totals = client.model(MODEL).getTotals().snapshot();
        assertThat(totals.calls()).isEqualTo(2);
        assertThat(totals.outputTokens()).isEqualTo(80);
        assertThat(client.model(MODEL).getLimiter().state().inFlight()).isZero();
    }

    private static void call(WebClient client) {
        String answer = client.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .bodyValue("{\"model\":\"" + MODEL
                    + "\",\"max_tokens\":100,\"messages\":[{\"role\":\"user\",\"content\":\"Say hello\"}]}")
            .retrieve()
            .bodyToMono(String.class)
            .block(Duration.ofSeconds(30));
        assertThat(answer).contains("\"usage\"");
    }

    @SpringBootApplication
    static class Application {

    }

}
