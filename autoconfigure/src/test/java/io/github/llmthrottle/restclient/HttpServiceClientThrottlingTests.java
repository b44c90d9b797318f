package io.github.llmthrottle.restclient;

import java.util.List;
import java.util.Map;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.service.HttpServiceClientPropertiesAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.service.HttpServiceClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.service.annotation.HttpExchange;
import org.springframework.web.service.annotation.PostExchange;
import org.springframework.web.service.registry.ImportHttpServices;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Boot 4's HTTP service clients ({@code @HttpExchange} interfaces imported with
 * {@code @ImportHttpServices}, their base URL in {@code spring.http.serviceclient.*}) are
 * throttled when that base URL is a configured client's: Boot builds their
 * {@code RestClient} with the request factory llm-throttle wraps.
 */
class HttpServiceClientThrottlingTests {

    private static final String SONNET = "claude-sonnet-4-5";

    private LlmSimulator simulator;

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.simulator = LlmSimulator.builder().noLatency().start();
        this.runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                    HttpServiceClientPropertiesAutoConfiguration.class, HttpServiceClientAutoConfiguration.class,
                    LlmThrottleAutoConfiguration.class))
            .withUserConfiguration(MessagesConfiguration.class)
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + this.simulator.baseUrl(),
                    "llm.throttle.clients.anthropic.api-key=test-key", "llm.throttle.retry.max-retries=2",
                    "llm.throttle.retry.delay=1ms", "llm.throttle.retry.max-delay=5ms",
                    "llm.throttle.retry.jitter=none",
                    "spring.http.serviceclient.anthropic.base-url=" + this.simulator.baseUrl(),
                    "spring.http.serviceclient.anthropic.default-header.x-api-key=test-key");
    }

    @AfterEach
    void stop() {
        this.simulator.close();
    }

    @Test
    void callsOfAnHttpServiceToAConfiguredHostAreThrottledAndRetried() {
        this.simulator.script(SONNET, Fault.overloaded());
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            String body = context.getBean(Messages.class)
                .create(Map.of("model", SONNET, "max_tokens", 10, "messages",
                        List.of(Map.of("role", "user", "content", "Hello"))));
            assertThat(body).contains("\"model\":\"" + SONNET + "\"");
            assertThat(this.simulator.stats(SONNET).attempts()).isEqualTo(2);
            ModelTotals.Snapshot totals = context.getBean(LlmThrottleRegistry.class)
                .getClient("anthropic")
                .model(SONNET)
                .getTotals()
                .snapshot();
            assertThat(totals.calls()).isEqualTo(1);
            assertThat(totals.overloaded()).isEqualTo(1);
            assertThat(totals.succeeded()).isEqualTo(1);
        });
    }

    @HttpExchange
    interface Messages {

        @PostExchange(url = "/v1/messages", contentType = "application/json")
        String create(@RequestBody Map<String, Object> request);

    }

    @Configuration(proxyBeanMethods = false)
    @ImportHttpServices(group = "anthropic", types = Messages.class)
    static class MessagesConfiguration {

    }

}
