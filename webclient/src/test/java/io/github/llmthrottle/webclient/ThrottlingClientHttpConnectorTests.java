package io.github.llmthrottle.webclient;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.http.client.reactive.ClientHttpRequest;
import org.springframework.http.client.reactive.ClientHttpResponse;
import org.springframework.mock.http.client.reactive.MockClientHttpRequest;
import org.springframework.mock.http.client.reactive.MockClientHttpResponse;
import org.springframework.web.reactive.function.client.WebClient;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The throttling connector around a delegate whose responses the test writes: the
 * observations of a call nest between the {@code WebClient}'s and the delegate's, and a
 * stream nobody reads is cancelled when it expires idle, its reader told why, nothing
 * left taken.
 */
class ThrottlingClientHttpConnectorTests {

    private static final String MODEL = "claude-sonnet-4-5";

    private static final String BASE_URL = "https://api.anthropic.test";

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static final String MESSAGE = """
            {"id":"msg_1","type":"message","content":[{"type":"text","text":"Hi"}],\
            "usage":{"input_tokens":12,"output_tokens":40}}""";

    private static final String MESSAGE_START = """
            event: message_start
            data: {"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}

            """;

    private final FakeClock clock = FakeClock.at("2026-03-02T09:00:00Z");

    private final TestObservationRegistry observations = TestObservationRegistry.create();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LlmThrottleAutoConfiguration.class))
        .withBean(TimeSource.class, () -> this.clock)
        .withBean(ObservationRegistry.class, () -> this.observations)
        .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.base-url=" + BASE_URL, "llm.throttle.clients.anthropic.read-timeout=5s",
                "llm.throttle.clients.anthropic.models." + MODEL + ".output-tokens-per-minute=10000");

    @Test
    void theCallNestsInTheWebClientsObservationAndTheDelegatesInTheAttempt() {
        ScriptedConnector delegate = new ScriptedConnector(this.observations, () -> {
            MockClientHttpResponse response = new MockClientHttpResponse(HttpStatus.OK);
            response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
            response.setBody(MESSAGE);
            return response;
        });
        this.runner.run((context) -> {
            String answer = messages(webClient(context, delegate), false).retrieve()
                .bodyToMono(String.class)
                .block(TIMEOUT);
            assertThat(answer).contains("\"usage\"");
            assertThat(this.observations).hasNumberOfObservationsWithNameEqualTo("http.client.requests", 1)
                .hasObservationWithNameEqualTo("llm.throttle.call")
                .that()
                .hasBeenStopped()
                .hasParentObservationContextSatisfying(
                        (parent) -> assertThat(parent.getName()).isEqualTo("http.client.requests"))
                .backToTestObservationRegistry()
                .hasObservationWithNameEqualTo("llm.throttle.attempt")
                .that()
                .hasBeenStopped()
                .hasParentObservationContextSatisfying(
                        (parent) -> assertThat(parent.getName()).isEqualTo("llm.throttle.call"))
                .backToTestObservationRegistry()
                .hasObservationWithNameEqualTo(ScriptedConnector.OBSERVATION)
                .that()
                .hasBeenStopped()
                .hasParentObservationContextSatisfying(
                        (parent) -> assertThat(parent.getName()).isEqualTo("llm.throttle.attempt"));
        });
    }

    @Test
    void aStreamLeftIdleLongerThanTheReadTimeoutIsCancelledAndItsReaderToldWhy() {
        AtomicBoolean bodyCancelled = new AtomicBoolean();
        ScriptedConnector delegate = new ScriptedConnector(this.observations, () -> {
            MockClientHttpResponse response = new MockClientHttpResponse(HttpStatus.OK);
            response.getHeaders().setContentType(MediaType.TEXT_EVENT_STREAM);
            // one event, then a provider that sends nothing more
            response.setBody(Flux.concat(Mono.fromSupplier(() -> chunk(MESSAGE_START)), Flux.<DataBuffer>never())
                .doOnCancel(() -> bodyCancelled.set(true)));
            return response;
        });
        this.runner.run((context) -> {
            ThrottledClient client = context.getBean(LlmThrottleRegistry.class).getClient("anthropic");
            assertThat(client).isNotNull();
            List<String> events = new CopyOnWriteArrayList<>();
            CompletableFuture<List<String>> read = messages(webClient(context, delegate), true).retrieve()
                .bodyToFlux(String.class)
                .doOnNext(events::add)
                .collectList()
                .toFuture();
            await().atMost(TIMEOUT).until(() -> !events.isEmpty());
            LimiterState reading = client.model(MODEL).getLimiter().state();
            assertThat(reading.inFlight()).isOne();
            assertThat(client.expireIdleStreams()).isZero();
            this.clock.advance(Duration.ofSeconds(6));
            // the application's reaper may end it first, on the same clock
            await().atMost(TIMEOUT).until(() -> {
                client.expireIdleStreams();
                return read.isDone();
            });
            Throwable failure = read.handle((list, ex) -> ex).join();
            assertThat(failure).hasRootCauseInstanceOf(TimeoutException.class)
                .rootCause()
                .hasMessageContaining("went idle for 6 s");
            assertThat(bodyCancelled).isTrue();
            LimiterState after = client.model(MODEL).getLimiter().state();
            assertThat(after.inFlight()).isZero();
            // the 1,000 output tokens reserved came back: the stream counted 1
            assertThat(after.available().outputTokens()).isGreaterThanOrEqualTo(9_999);
            assertThat(client.model(MODEL).getTotals().snapshot().calls()).isOne();
            assertThat(client.expireIdleStreams()).isZero();
        });
    }

    private static WebClient webClient(ApplicationContext context, ClientHttpConnector delegate) {
        LlmThrottleRegistry registry = context.getBean(LlmThrottleRegistry.class);
        return WebClient.builder()
            .baseUrl(BASE_URL)
            .observationRegistry(context.getBean(ObservationRegistry.class))
            .clientConnector(new ThrottlingClientHttpConnector(delegate, () -> registry))
            .build();
    }

    private static WebClient.RequestHeadersSpec<?> messages(WebClient client, boolean stream) {
        return client.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .accept(stream ? MediaType.TEXT_EVENT_STREAM : MediaType.APPLICATION_JSON)
            .bodyValue("{\"model\":\"" + MODEL + "\",\"max_tokens\":1000,\"stream\":" + stream
                    + ",\"messages\":[{\"role\":\"user\",\"content\":\"Say hello\"}]}");
    }

    private static DataBuffer chunk(String text) {
        return DefaultDataBufferFactory.sharedInstance.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The HTTP library under the throttling connector: each exchange answered with what
     * the test writes, and observed as an HTTP library that observes does, in the
     * observation of its Reactor context.
     */
    private static final class ScriptedConnector implements ClientHttpConnector {

        static final String OBSERVATION = "test.http.exchange";

        private final ObservationRegistry observations;

        private final Supplier<ClientHttpResponse> responses;

        ScriptedConnector(ObservationRegistry observations, Supplier<ClientHttpResponse> responses) {
            this.observations = observations;
            this.responses = responses;
        }

        @Override
        public Mono<ClientHttpResponse> connect(HttpMethod method, URI uri,
                Function<? super ClientHttpRequest, Mono<Void>> requestCallback) {
            return Mono.deferContextual((reactive) -> {
                Observation exchange = Observation.createNotStarted(OBSERVATION, this.observations)
                    .parentObservation(reactive.getOrDefault(ObservationThreadLocalAccessor.KEY, null))
                    .start();
                return requestCallback.apply(new MockClientHttpRequest(method, uri))
                    .then(Mono.fromSupplier(this.responses))
                    .doFinally((signal) -> exchange.stop());
            });
        }

    }

}
