package io.github.llmthrottle.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.QueueFullException;
import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.client.ClientSettings.ModelSettings;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.observation.LlmThrottleAttemptObservationContext;
import io.github.llmthrottle.observation.LlmThrottleCallObservationContext;
import io.github.llmthrottle.observation.LlmThrottleObservations;
import io.github.llmthrottle.provider.CharacterTokenEstimator;
import io.github.llmthrottle.provider.Headers;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.provider.RequestBodyReader;
import io.github.llmthrottle.provider.UsageReader;
import io.github.llmthrottle.retry.Jitter;
import io.github.llmthrottle.retry.RetrySettings;
import io.github.llmthrottle.routing.CircuitSettings;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The observations of the call pipeline, against Micrometer's
 * {@link TestObservationRegistry} (which also checks that every observation of a name has
 * the same low-cardinality keys, as Prometheus requires of the timers Boot makes of
 * them): one {@code llm.throttle.call} per call and one {@code llm.throttle.attempt} per
 * attempt nested in it, none for a refused call, a stream's ending with its stream.
 */
class ThrottledClientObservationTests {

    private static final String MODEL = "opus";

    private static final Set<String> LOW_CARDINALITY_KEYS = Set.of("client", "model", "priority", "outcome");

    private static final String REQUEST = """
            {"model":"opus","max_tokens":1000,"messages":[{"role":"user","content":"hello"}]}""";

    private static final String STREAM_REQUEST = """
            {"model":"opus","max_tokens":1000,"stream":true,"messages":[{"role":"user","content":"hello"}]}""";

    private static final String MESSAGE = """
            {"id":"msg_1","type":"message","content":[{"type":"text","text":"Hi"}],\
            "usage":{"input_tokens":12,"output_tokens":40}}""";

    private static final String RATE_LIMITED = """
            {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}""";

    private static final String STREAM = """
            event: message_start
            data: {"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}

            event: message_delta
            data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":30}}

            event: message_stop
            data: {"type":"message_stop"}

            """;

    private final FakeClock clock = FakeClock.at("2026-08-20T10:00:00Z");

    private final TimeSource time = this.clock.advancingWaits();

    private final TestObservationRegistry observations = TestObservationRegistry.builder()
        .validateObservationsWithTheSameNameHavingTheSameSetOfLowCardinalityKeys(true)
        .build();

    private final FakeProvider provider = new FakeProvider();

    private final RetrySettings retry = new RetrySettings(2, Duration.ofMillis(500), 2.0, Duration.ofSeconds(30),
            Jitter.NONE, true, Duration.ofSeconds(60));

    @Test
    void successIsOneCallWithOneAttemptNestedInIt() throws IOException {
        ThrottledClient client = client(ModelLimits.UNLIMITED, this.retry, 10);
        this.provider.then(200, MESSAGE, "content-type", "application/json", "request-id", "req_1");
        client.exchange(request(REQUEST), this.provider);
        assertThat(this.observations).hasNumberOfObservationsWithNameEqualTo("llm.throttle.call", 1)
            .hasNumberOfObservationsWithNameEqualTo("llm.throttle.attempt", 1)
            .hasObservationWithNameEqualTo("llm.throttle.call")
            .that()
            .hasBeenStopped()
            .hasContextualNameEqualTo("llm call opus")
            .hasLowCardinalityKeyValue("client", "anthropic")
            .hasLowCardinalityKeyValue("model", MODEL)
            .hasLowCardinalityKeyValue("priority", "normal")
            .hasLowCardinalityKeyValue("outcome", "success")
            .hasHighCardinalityKeyValue("provider.request.id", "req_1")
            .hasHighCardinalityKeyValue("gen_ai.usage.input_tokens", "12")
            .hasHighCardinalityKeyValue("gen_ai.usage.output_tokens", "40")
            .hasHighCardinalityKeyValue("llm.throttle.attempts", "1")
            .doesNotHaveError()
            .backToTestObservationRegistry()
            .hasObservationWithNameEqualTo("llm.throttle.attempt")
            .that()
            .hasBeenStopped()
            .hasParentObservationContextSatisfying(
                    (parent) -> assertThat(parent.getName()).isEqualTo("llm.throttle.call"))
            .hasLowCardinalityKeyValue("outcome", "success")
            .hasHighCardinalityKeyValue("llm.throttle.attempt.number", "1")
            .hasHighCardinalityKeyValue("http.response.status_code", "200")
            .hasHighCardinalityKeyValue("provider.request.id", "req_1")
            .hasHighCardinalityKeyValue("gen_ai.usage.output_tokens", "40")
            .doesNotHaveHighCardinalityKeyValueWithKey("llm.throttle.back_off")
            .doesNotHaveError();
        assertEveryObservationHasTheSameLowCardinalityKeys();
    }

    @Test
    void rateLimitedThenSuccessfulIsOneCallWithTwoAttemptsAndTheBackOffBetweenThem() throws IOException {
        ThrottledClient client = client(ModelLimits.UNLIMITED, this.retry, 10);
        this.provider.then(429, RATE_LIMITED, "retry-after", "1", "request-id", "req_429")
            .then(200, MESSAGE, "content-type", "application/json", "request-id", "req_200");
        client.exchange(request(REQUEST), this.provider);
        assertThat(this.observations).hasNumberOfObservationsWithNameEqualTo("llm.throttle.call", 1)
            .hasNumberOfObservationsWithNameEqualTo("llm.throttle.attempt", 2)
            .hasObservationWithNameEqualTo("llm.throttle.call")
            .that()
            .hasLowCardinalityKeyValue("outcome", "success")
            .hasHighCardinalityKeyValue("llm.throttle.attempts", "2")
            .hasHighCardinalityKeyValue("provider.request.id", "req_200");
        List<LlmThrottleAttemptObservationContext> attempts = attempts();
        assertThat(attempts).extracting(LlmThrottleAttemptObservationContext::getAttempt).containsExactly(1, 2);
        assertThat(attempts.get(0).getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("rate_limited");
        assertThat(attempts.get(0).getError()).isInstanceOf(ProviderResponseException.class);
        assertThat(attempts.get(0).getHighCardinalityKeyValue("provider.request.id").getValue()).isEqualTo("req_429");
        assertThat(attempts.get(1).getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("success");
        assertThat(attempts.get(1).getError()).isNull();
        // the server's one second, slept between the two attempts
        assertThat(attempts.get(1).getBackOff()).isEqualTo(Duration.ofSeconds(1));
        assertThat(attempts.get(1).getHighCardinalityKeyValue("llm.throttle.back_off").getValue()).isEqualTo("1.000");
        assertThat(attempts).allSatisfy((attempt) -> assertThat(attempt.getParentObservation().getContextView())
            .isInstanceOf(LlmThrottleCallObservationContext.class));
        assertEveryObservationHasTheSameLowCardinalityKeys();
    }

    @Test
    void exhaustedRetriesFailTheCallWithItsException() {
        ThrottledClient client = client(ModelLimits.UNLIMITED, this.retry, 10);
        this.provider.then(529, "{}").then(529, "{}").then(529, "{}");
        assertThatExceptionOfType(RetriesExhaustedException.class)
            .isThrownBy(() -> client.exchange(request(REQUEST), this.provider));
        assertThat(this.observations).hasNumberOfObservationsWithNameEqualTo("llm.throttle.attempt", 3)
            .forAllObservationsWithNameEqualTo("llm.throttle.attempt",
                    (attempt) -> attempt.hasLowCardinalityKeyValue("outcome", "overloaded").hasError())
            .hasObservationWithNameEqualTo("llm.throttle.call")
            .that()
            .hasLowCardinalityKeyValue("outcome", "failed")
            .assertThatError()
            .isInstanceOf(RetriesExhaustedException.class);
        assertEveryObservationHasTheSameLowCardinalityKeys();
    }

    @Test
    void callRefusedByAFullQueueIsARejectedCallWithoutAnAttempt() throws IOException {
        // one request a minute and no room to queue: the second call is refused at once
        ThrottledClient client = client(new ModelLimits(1L, null, null, null), this.retry, 0);
        this.provider.then(200, MESSAGE, "content-type", "application/json");
        client.exchange(request(REQUEST), this.provider);
        assertThatExceptionOfType(QueueFullException.class)
            .isThrownBy(() -> client.exchange(request(REQUEST), this.provider));
        assertThat(this.observations).hasNumberOfObservationsWithNameEqualTo("llm.throttle.call", 2)
            .hasNumberOfObservationsWithNameEqualTo("llm.throttle.attempt", 1)
            .hasAnObservation((call) -> call.hasNameEqualTo("llm.throttle.call")
                .hasLowCardinalityKeyValue("outcome", "rejected")
                .hasHighCardinalityKeyValue("llm.throttle.rejection", "queue_full")
                .hasHighCardinalityKeyValue("llm.throttle.attempts", "0")
                .hasError());
        assertEveryObservationHasTheSameLowCardinalityKeys();
    }

    @Test
    void callRefusedByAnOpenCircuitIsARejectedCallWithoutAnAttempt() {
        RetrySettings noRetries = new RetrySettings(0, Duration.ofMillis(500), 2.0, Duration.ofSeconds(30), Jitter.NONE,
                true, Duration.ofSeconds(60));
        ThrottledClient client = client(ModelLimits.UNLIMITED, noRetries, 10);
        int threshold = CircuitSettings.DEFAULTS.failureThreshold();
        for (int i = 0; i < threshold; i++) {
            this.provider.thenIoError("Connection reset");
            assertThatExceptionOfType(RetriesExhaustedException.class)
                .isThrownBy(() -> client.exchange(request(REQUEST), this.provider));
        }
        this.observations.clear();
        assertThatExceptionOfType(CircuitOpenException.class)
            .isThrownBy(() -> client.exchange(request(REQUEST), this.provider));
        assertThat(this.observations).hasNumberOfObservationsWithNameEqualTo("llm.throttle.attempt", 0)
            .hasSingleObservationThat()
            .hasNameEqualTo("llm.throttle.call")
            .hasBeenStopped()
            .hasLowCardinalityKeyValue("outcome", "rejected")
            .hasHighCardinalityKeyValue("llm.throttle.rejection", "circuit_open")
            .assertThatError()
            .isInstanceOf(CircuitOpenException.class);
    }

    @Test
    void streamedCallAndItsAttemptEndWithTheStream() throws IOException {
        ThrottledClient client = client(ModelLimits.UNLIMITED, this.retry, 10);
        this.provider.then(200, STREAM, "content-type", "text/event-stream", "request-id", "req_stream");
        ThrottledResponse<FakeProvider.Response> response = client.exchange(request(STREAM_REQUEST), this.provider);
        assertThat(this.observations).hasObservationWithNameEqualTo("llm.throttle.attempt")
            .that()
            .isNotStopped()
            .backToTestObservationRegistry()
            .hasObservationWithNameEqualTo("llm.throttle.call")
            .that()
            .isNotStopped();
        try (InputStream body = response.body()) {
            body.readAllBytes();
        }
        assertThat(this.observations).hasObservationWithNameEqualTo("llm.throttle.attempt")
            .that()
            .hasBeenStopped()
            .hasLowCardinalityKeyValue("outcome", "success")
            .hasHighCardinalityKeyValue("provider.request.id", "req_stream")
            .hasHighCardinalityKeyValue("gen_ai.usage.input_tokens", "5")
            .hasHighCardinalityKeyValue("gen_ai.usage.output_tokens", "30")
            .backToTestObservationRegistry()
            .hasObservationWithNameEqualTo("llm.throttle.call")
            .that()
            .hasBeenStopped()
            .hasLowCardinalityKeyValue("outcome", "success")
            .hasHighCardinalityKeyValue("gen_ai.usage.output_tokens", "30");
        assertEveryObservationHasTheSameLowCardinalityKeys();
    }

    @Test
    void streamWithAnErrorEventFailsItsAttemptAndCall() throws IOException {
        ThrottledClient client = client(ModelLimits.UNLIMITED, this.retry, 10);
        String stream = STREAM.substring(0, STREAM.indexOf("event: message_delta"))
                + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}\n\n";
        this.provider.then(200, stream, "content-type", "text/event-stream");
        try (ThrottledResponse<FakeProvider.Response> response = client.exchange(request(STREAM_REQUEST),
                this.provider); InputStream body = response.body()) {
            body.readAllBytes();
        }
        assertThat(this.observations).hasObservationWithNameEqualTo("llm.throttle.attempt")
            .that()
            .hasBeenStopped()
            .hasLowCardinalityKeyValue("outcome", "overloaded")
            .hasError()
            .backToTestObservationRegistry()
            .hasObservationWithNameEqualTo("llm.throttle.call")
            .that()
            .hasBeenStopped()
            .hasLowCardinalityKeyValue("outcome", "failed")
            .hasError();
        assertEveryObservationHasTheSameLowCardinalityKeys();
    }

    @Test
    void clientErrorReturnedToTheCallerFailsTheCallWithTheAdaptersException() throws IOException {
        ThrottledClient client = client(ModelLimits.UNLIMITED, this.retry, 10);
        this.provider.then(400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\"}}");
        assertThat(client.exchange(request(REQUEST), this.provider).status()).isEqualTo(400);
        assertThat(this.observations).hasObservationWithNameEqualTo("llm.throttle.call")
            .that()
            .hasLowCardinalityKeyValue("outcome", "failed")
            .assertThatError()
            .isInstanceOf(ProviderResponseException.class);
        assertThat(this.observations).hasObservationWithNameEqualTo("llm.throttle.attempt")
            .that()
            .hasLowCardinalityKeyValue("outcome", "client_error")
            .hasHighCardinalityKeyValue("http.response.status_code", "400");
        assertEveryObservationHasTheSameLowCardinalityKeys();
    }

    @Test
    void withNobodyListeningNoObservationNorContextIsMade() throws IOException {
        LlmThrottleObservations nobody = LlmThrottleObservations.of(ObservationRegistry.create());
        Observation call = nobody.call(() -> {
            throw new AssertionError("no context when nobody listens");
        });
        assertThat(call.isNoop()).isTrue();
        assertThat(nobody.attempt(() -> {
            throw new AssertionError("no context when nobody listens");
        }, call).isNoop()).isTrue();
        ThrottledClient client = client(ModelLimits.UNLIMITED, this.retry, 10, LlmThrottleObservations.NONE);
        this.provider.then(200, MESSAGE, "content-type", "application/json");
        assertThat(client.exchange(request(REQUEST), this.provider).status()).isEqualTo(200);
        assertThat(this.observations).doesNotHaveAnyObservation();
    }

    @Test
    void anAsynchronousCallNestsInTheCallersObservationAndItsAttemptIsCurrentWhileTheExchangeStarts() {
        ThrottledClient client = client(ModelLimits.UNLIMITED, this.retry, 10);
        List<String> currentAtExchange = new ArrayList<>();
        AsyncFakeProvider provider = new AsyncFakeProvider().then(200, MESSAGE, "content-type", "application/json");
        AsyncProviderExchange<FakeProvider.Response> observed = new AsyncProviderExchange<>() {

            @Override
            public CompletableFuture<FakeProvider.Response> execute() {
                Observation current = ThrottledClientObservationTests.this.observations.getCurrentObservation();
                currentAtExchange.add((current != null) ? current.getContext().getName() : "none");
                return provider.execute();
            }

            @Override
            public CompletableFuture<byte[]> readBody(FakeProvider.Response response, int limit) {
                return provider.readBody(response, limit);
            }

        };
        Observation caller = Observation.start("caller", this.observations);
        try (Observation.Scope scope = caller.openScope()) {
            assertThat(client.exchangeAsync(request(REQUEST), observed)).isCompleted();
        }
        caller.stop();
        assertThat(currentAtExchange).containsExactly("llm.throttle.attempt");
        assertThat(this.observations.getCurrentObservation()).isNull();
        assertThat(this.observations).hasObservationWithNameEqualTo("llm.throttle.call")
            .that()
            .hasBeenStopped()
            .hasParentObservationContextSatisfying((parent) -> assertThat(parent.getName()).isEqualTo("caller"));
    }

    private void assertEveryObservationHasTheSameLowCardinalityKeys() {
        assertThat(this.observations).hasHandledContextsThatSatisfy((contexts) -> {
            assertThat(contexts).isNotEmpty();
            assertThat(contexts).allSatisfy((context) -> assertThat(
                    context.getLowCardinalityKeyValues().stream().map(KeyValue::getKey).collect(Collectors.toSet()))
                .isEqualTo(LOW_CARDINALITY_KEYS));
        });
    }

    private List<LlmThrottleAttemptObservationContext> attempts() {
        List<LlmThrottleAttemptObservationContext> attempts = new java.util.ArrayList<>();
        assertThat(this.observations).hasHandledContextsThatSatisfy((contexts) -> contexts.stream()
            .filter(LlmThrottleAttemptObservationContext.class::isInstance)
            .map(LlmThrottleAttemptObservationContext.class::cast)
            .forEach(attempts::add));
        return attempts;
    }

    private static ProviderRequest request(String body) {
        return new ProviderRequest("POST", URI.create("https://api.anthropic.com/v1/messages"), Headers.EMPTY,
                body.getBytes(StandardCharsets.UTF_8), false);
    }

    private ThrottledClient client(ModelLimits limits, RetrySettings retry, int queueCapacity) {
        return client(limits, retry, queueCapacity, LlmThrottleObservations.of(this.observations));
    }

    private ThrottledClient client(ModelLimits limits, RetrySettings retry, int queueCapacity,
            LlmThrottleObservations observations) {
        ClientSettings clientSettings = new ClientSettings("anthropic", ProviderDialect.ANTHROPIC,
                URI.create("https://api.anthropic.com"), null, Duration.ofSeconds(1), Duration.ofSeconds(1), Map.of(),
                MODEL, ModelLimits.UNLIMITED, Map.of(MODEL, new ModelSettings(MODEL, limits, List.of())), retry);
        ThrottleSettings settings = new ThrottleSettings(Map.of("anthropic", clientSettings), queueCapacity,
                Duration.ofSeconds(30), null, Map.of());
        LimiterRegistry limiters = new LimiterRegistry(settings.clientLimits(), queueCapacity, Duration.ofSeconds(30),
                (tenant) -> null, new LocalBucketStore(this.time), this.time);
        return new ThrottledClient(clientSettings, limiters, new CharacterTokenEstimator(), TenantResolver.NONE,
                new CompositeThrottleObserver(List.of()), observations, new RequestBodyReader(), new UsageReader(),
                CircuitSettings.DEFAULTS, this.time);
    }

}
