package io.github.llmthrottle.client;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.LlmSimulatorExtension;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Streamed responses through the throttled {@code RestClient}, against the simulated
 * provider: the caller reads the events as they come, the output reservation is settled
 * from the stream's usage events, and an error event inside a 200 stream counts as what
 * it is.
 */
class ThrottledStreamingTests {

    private static final String MODEL = "claude-sonnet-4-5";

    /**
     * The time of the application and of the simulated provider alike, moving only when
     * the application sleeps or waits: a pause ends when it should however slow the
     * machine.
     */
    private static final FakeClock clock = FakeClock.at("2026-03-02T09:00:00Z").advancingWaits();

    @RegisterExtension
    static final LlmSimulatorExtension simulator = LlmSimulatorExtension.of(LlmSimulator.builder()
        .model(MODEL, ModelLimits.of(100, 100_000, 10_000))
        .outputTokens(40)
        .noLatency()
        .clock(clock));

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                LlmThrottleAutoConfiguration.class))
        .withBean(TimeSource.class, () -> clock)
        .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.base-url=" + simulator.baseUrl(),
                "llm.throttle.clients.anthropic.models." + MODEL + ".output-tokens-per-minute=10000");

    @Test
    void streamIsPassedThroughAndItsUsageRefundsTheUnusedReservation() {
        this.runner.run((context) -> {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            ThrottledClient.ThrottledModel model = context.getBean(LlmThrottleRegistry.class)
                .getClient("anthropic")
                .model(MODEL);
            String events = stream(client, 1000);
            assertThat(events).contains("event: message_start")
                .contains("event: message_delta")
                .contains("event: message_stop");
            ModelTotals.Snapshot totals = model.getTotals().snapshot();
            assertThat(totals.outputTokens()).isEqualTo(40);
            assertThat(totals.inputTokens()).isPositive();
            LimiterState state = model.getLimiter().state();
            assertThat(state.inFlight()).isZero();
            // 1,000 reserved from max_tokens, 40 used: the other 960 came back at once,
            // on top of what the headers left (9,000, rounded: at least 8,500)
            assertThat(state.available().outputTokens()).isGreaterThanOrEqualTo(8_500 + 960);
        });
    }

    @Test
    void errorEventInsideA200StreamCountsAsOverloaded() {
        simulator.simulator().script(MODEL, Fault.streamError(2));
        this.runner.run((context) -> {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            String events = stream(client, 200);
            assertThat(events).contains("event: error").contains("overloaded_error");
            ThrottledClient.ThrottledModel model = context.getBean(LlmThrottleRegistry.class)
                .getClient("anthropic")
                .model(MODEL);
            assertThat(model.getTotals().snapshot().overloaded()).isEqualTo(1);
            assertThat(model.getLimiter().state().inFlight()).isZero();
        });
    }

    @Test
    @DisplayName("a rate-limit error event inside a 200 stream with retry-after pauses the model")
    void rateLimitErrorEventWithRetryAfterPausesTheModel() {
        simulator.simulator().script(MODEL, Fault.streamError(1).errorType("rate_limit_error").retryAfter("4"));
        this.runner.run((context) -> {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            Instant sent = clock.instant();
            assertThat(stream(client, 200)).contains("event: error").contains("rate_limit_error");
            ThrottledClient.ThrottledModel model = context.getBean(LlmThrottleRegistry.class)
                .getClient("anthropic")
                .model(MODEL);
            assertThat(model.getTotals().snapshot().rateLimited()).isEqualTo(1);
            LimiterState state = model.getLimiter().state();
            assertThat(state.pausedUntil()).isEqualTo(sent.plusSeconds(4));
        });
    }

    @Test
    void closingAStreamEarlyReleasesItsPermit() {
        this.runner.run((context) -> {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            client.post()
                .uri("/v1/messages")
                .contentType(MediaType.APPLICATION_JSON)
                .body(body(500))
                .exchange((request, response) -> {
                    try (InputStream in = response.getBody()) {
                        return in.readNBytes(64);
                    }
                });
            LimiterState state = context.getBean(LlmThrottleRegistry.class)
                .getClient("anthropic")
                .model(MODEL)
                .getLimiter()
                .state();
            assertThat(state.inFlight()).isZero();
        });
    }

    private static String stream(RestClient client, int maxTokens) {
        return client.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body(body(maxTokens))
            .exchange((request, response) -> {
                try (InputStream in = response.getBody()) {
                    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
            });
    }

    private static Map<String, Object> body(int maxTokens) {
        return Map.of("model", MODEL, "max_tokens", maxTokens, "stream", true, "messages",
                List.of(Map.of("role", "user", "content", "Tell me about token buckets.")));
    }

}
