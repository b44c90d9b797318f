package io.github.llmthrottle.client;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.LlmSimulatorExtension;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.test.TokenEstimate;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ollama's chat through the throttled {@code RestClient} of a {@code provider: ollama}
 * client, against the simulated Ollama: {@code options.num_predict} is reserved and the
 * reservation settled from the counts of a JSON answer or of an NDJSON stream's last line
 * (a chat without a {@code stream} field streams, as Ollama's does), a 429 is retried,
 * and model management passes through unmetered.
 */
class ThrottledOllamaRestClientTests {

    private static final String MODEL = "llama3";

    private static final String INPUT = "Tell me about token buckets.";

    private static final long OUTPUT_TOKENS_PER_MINUTE = 100_000;

    /** Far more than the 40 tokens answered, and than the bucket refills in seconds. */
    private static final int NUM_PREDICT = 30_000;

    @RegisterExtension
    static final LlmSimulatorExtension simulator = LlmSimulatorExtension
        .of(LlmSimulator.builder().model(MODEL, ModelLimits.openAi(100, 1_000_000)).outputTokens(40).noLatency());

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                LlmThrottleAutoConfiguration.class))
        .withPropertyValues("llm.throttle.clients.ollama.provider=ollama",
                "llm.throttle.clients.ollama.base-url=" + simulator.baseUrl(),
                "llm.throttle.clients.ollama.models." + MODEL + ".output-tokens-per-minute=" + OUTPUT_TOKENS_PER_MINUTE,
                "llm.throttle.retry.delay=1ms", "llm.throttle.retry.max-delay=5ms", "llm.throttle.retry.jitter=none");

    @ParameterizedTest(name = "stream: {0}")
    @CsvSource(value = { "false, \"done\":true", "true, \"done\":false", "null, \"done\":false" }, nullValues = "null")
    void chatSettlesTheReservationFromItsAnswerOrItsLastLine(@Nullable Boolean stream, String expected) {
        this.runner.run((context) -> {
            String body = chat(context, stream);
            assertThat(body).contains(expected).contains("\"eval_count\":40");
            ThrottledClient.ThrottledModel model = model(context);
            ModelTotals.Snapshot totals = model.getTotals().snapshot();
            assertThat(totals.succeeded()).isOne();
            assertThat(totals.inputTokens()).isEqualTo(TokenEstimate.of(INPUT));
            assertThat(totals.outputTokens()).isEqualTo(40);
            LimiterState state = model.getLimiter().state();
            assertThat(state.inFlight()).isZero();
            // held until settled: the 30,000 reserved came back but for the 40 answered
            // (and what the bucket refilled meanwhile)
            assertThat(state.available().outputTokens()).isGreaterThan(OUTPUT_TOKENS_PER_MINUTE - NUM_PREDICT / 2);
        });
    }

    @Test
    void aChatRateLimitedBeforeItsStreamIsRetried() {
        simulator.simulator().script(MODEL, Fault.status(429).retryAfter("0.01"), Fault.ok());
        this.runner.run((context) -> {
            assertThat(chat(context, null)).contains("\"done\":true");
            ModelTotals.Snapshot totals = model(context).getTotals().snapshot();
            assertThat(totals.rateLimited()).isOne();
            assertThat(totals.retries()).isOne();
            assertThat(totals.succeeded()).isOne();
            assertThat(simulator.simulator().stats(MODEL).attempts()).isEqualTo(2);
        });
    }

    @Test
    void modelManagementPassesThroughUnmetered() {
        this.runner.run((context) -> {
            for (String path : List.of("/api/tags", "/api/version", "/api/ps")) {
                restClient(context).get().uri(path).exchange((request, response) -> response.getStatusCode().value());
            }
            // a model call without a model would have been counted against "default"
            assertThat(context.getBean(LlmThrottleRegistry.class).getClient("ollama").getModels())
                .containsOnlyKeys(MODEL);
            assertThat(model(context).getTotals().snapshot().calls()).isZero();
        });
    }

    private static ThrottledClient.ThrottledModel model(ApplicationContext context) {
        return context.getBean(LlmThrottleRegistry.class).getClient("ollama").model(MODEL);
    }

    private static RestClient restClient(ApplicationContext context) {
        return context.getBean("ollamaRestClient", RestClient.class);
    }

    private static String chat(ApplicationContext context, @Nullable Boolean stream) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", MODEL);
        body.put("messages", List.of(Map.of("role", "user", "content", INPUT)));
        body.put("options", Map.of("num_predict", NUM_PREDICT));
        if (stream != null) {
            body.put("stream", stream);
        }
        return restClient(context).post()
            .uri("/api/chat")
            .contentType(MediaType.APPLICATION_JSON)
            .body(body)
            .exchange((request, response) -> {
                try (InputStream in = response.getBody()) {
                    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
            });
    }

}
