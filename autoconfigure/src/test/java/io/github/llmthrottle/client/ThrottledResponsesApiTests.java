package io.github.llmthrottle.client;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.LlmSimulatorExtension;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.test.TokenEstimate;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAI Responses API through the throttled {@code RestClient}, against the
 * simulated provider: {@code max_output_tokens} is reserved and the reservation settled
 * from the usage of a plain response and of a stream's {@code response.completed}; a 429
 * is retried before the stream, and a {@code response.failed} event inside a 200 stream
 * counts as what its code says, without a retry.
 */
class ThrottledResponsesApiTests {

    private static final String MODEL = "gpt-5";

    private static final String INSTRUCTIONS = "Answer in one sentence.";

    private static final String INPUT = "Tell me about token buckets.";

    /** Far more than the 40 tokens answered, and than the bucket refills in seconds. */
    private static final int MAX_OUTPUT_TOKENS = 30_000;

    private static final int LIMIT = 100_000;

    @RegisterExtension
    static final LlmSimulatorExtension simulator = LlmSimulatorExtension
        .of(LlmSimulator.builder().model(MODEL, ModelLimits.openAi(100, LIMIT)).outputTokens(40).noLatency());

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                LlmThrottleAutoConfiguration.class))
        .withPropertyValues("llm.throttle.clients.openai.provider=openai",
                "llm.throttle.clients.openai.base-url=" + simulator.simulator().openAiBaseUrl(),
                "llm.throttle.clients.openai.api-key=sk-test",
                "llm.throttle.clients.openai.models." + MODEL + ".requests-per-minute=100",
                "llm.throttle.retry.delay=1ms", "llm.throttle.retry.max-delay=5ms", "llm.throttle.retry.jitter=none")
        .withBean(StreamOutcomes.class);

    @ParameterizedTest(name = "stream: {0}")
    @ValueSource(booleans = { false, true })
    void responseSettlesTheReservationFromItsUsageOrTheCompletedEventsUsage(boolean stream) {
        this.runner.run((context) -> {
            ThrottledClient.ThrottledModel model = learnedModel(context);
            ModelTotals.Snapshot before = model.getTotals().snapshot();
            String body = call(context, stream);
            assertThat(body).contains(stream ? "event: response.completed" : "\"object\":\"response\"")
                .contains("\"output_tokens\":40");
            assertSettled(model, before);
        });
    }

    @Test
    void plainCallRateLimitedBeforeItsResponseIsRetried() {
        simulator.simulator().script(MODEL, Fault.status(429).retryAfter("0.01"), Fault.ok());
        this.runner.run((context) -> {
            assertThat(call(context, false)).contains("\"status\":\"completed\"");
            ModelTotals.Snapshot totals = model(context).getTotals().snapshot();
            assertThat(totals.rateLimited()).isEqualTo(1);
            assertThat(totals.retries()).isEqualTo(1);
            assertThat(totals.succeeded()).isEqualTo(1);
            assertThat(simulator.simulator().stats(MODEL).attempts()).isEqualTo(2);
        });
    }

    @Test
    void responseFailedEventInsideAStreamIsClassifiedByItsCodeAndNotRetried() {
        simulator.simulator()
            .script(MODEL, Fault.streamError(2).errorCode("rate_limit_exceeded"),
                    Fault.streamError(1).errorCode("server_is_overloaded"), Fault.streamError(0));
        this.runner.run((context) -> {
            assertThat(call(context, true)).contains("event: response.failed").contains("rate_limit_exceeded");
            assertThat(call(context, true)).contains("event: response.failed").contains("server_is_overloaded");
            assertThat(call(context, true)).contains("event: response.failed").contains("server_error");
            ThrottledClient.ThrottledModel model = model(context);
            ModelTotals.Snapshot totals = model.getTotals().snapshot();
            assertThat(totals.rateLimited()).isEqualTo(1);
            assertThat(totals.overloaded()).isEqualTo(1);
            assertThat(totals.retries()).isZero();
            StreamOutcomes outcomes = context.getBean(StreamOutcomes.class);
            assertThat(outcomes.attempts).containsExactly(Outcome.RATE_LIMITED, Outcome.OVERLOADED,
                    Outcome.SERVER_ERROR);
            assertThat(outcomes.errorTypes).containsExactly("rate_limit_exceeded", "server_is_overloaded", "error");
            assertThat(simulator.simulator().stats(MODEL).attempts()).as("a started stream is not sent again")
                .isEqualTo(3);
            assertThat(model.getLimiter().state().inFlight()).isZero();
        });
    }

    /**
     * Learns the provider's token limit from a first call's headers, so that the next
     * call's reservation is taken from (and settled to) the model's token bucket.
     */
    private static ThrottledClient.ThrottledModel learnedModel(ApplicationContext context) {
        call(context, false, 16);
        ThrottledClient.ThrottledModel model = model(context);
        assertThat(model.getLimiter().state().available().tokens()).isNotNull();
        return model;
    }

    /**
     * The call's tokens are the simulator's usage, and the 30,000 tokens reserved for the
     * answer but not used came back.
     */
    private static void assertSettled(ThrottledClient.ThrottledModel model, ModelTotals.Snapshot before) {
        ModelTotals.Snapshot totals = model.getTotals().snapshot();
        assertThat(totals.inputTokens() - before.inputTokens()).isEqualTo(TokenEstimate.of(INSTRUCTIONS, INPUT));
        assertThat(totals.outputTokens() - before.outputTokens()).isEqualTo(40);
        LimiterState state = model.getLimiter().state();
        assertThat(state.inFlight()).isZero();
        // held until settled: at most the limit less the 30,000 reserved, plus what the
        // bucket refills in the few seconds of the test
        assertThat(state.available().tokens()).isGreaterThan(LIMIT - MAX_OUTPUT_TOKENS + 20_000);
    }

    private static ThrottledClient.ThrottledModel model(ApplicationContext context) {
        return context.getBean(LlmThrottleRegistry.class).getClient("openai").model(MODEL);
    }

    private static String call(ApplicationContext context, boolean stream) {
        return call(context, stream, MAX_OUTPUT_TOKENS);
    }

    private static String call(ApplicationContext context, boolean stream, int maxOutputTokens) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", MODEL);
        body.put("instructions", INSTRUCTIONS);
        body.put("input", INPUT);
        body.put("max_output_tokens", maxOutputTokens);
        body.put("stream", stream);
        return context.getBean("openaiRestClient", RestClient.class)
            .post()
            .uri("/responses")
            .contentType(MediaType.APPLICATION_JSON)
            .body(body)
            .exchange((request, response) -> {
                try (InputStream in = response.getBody()) {
                    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
            });
    }

    /** What the attempts and calls of the context's clients ended as, in order. */
    static final class StreamOutcomes implements ThrottleObserver {

        final List<Outcome> attempts = new CopyOnWriteArrayList<>();

        final List<@Nullable String> errorTypes = new CopyOnWriteArrayList<>();

        @Override
        public void onAttempt(String client, String model, Outcome outcome, int status, Duration duration) {
            this.attempts.add(outcome);
        }

        @Override
        public void onCallCompleted(String client, String model, Duration duration, @Nullable String errorType) {
            this.errorTypes.add(errorType);
        }

    }

}
