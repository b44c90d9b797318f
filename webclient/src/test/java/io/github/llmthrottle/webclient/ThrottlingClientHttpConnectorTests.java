package io.github.llmthrottle.webclient;

import java.net.URI;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
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

/**
 * The throttling connector around a delegate whose responses the test writes: the
 * observations of a call nest between the {@code WebClient}'s and the delegate's.
 */
class ThrottlingClientHttpConnectorTests {

    private static final String MODEL = "claude-sonnet-4-5";

    private static final String BASE_URL = "https://api.anthropic.test";

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static final String MESSAGE = """
            {"id":"msg_1","type":"message","content":[{"type":"text","text":"Hi"}],\
            "usage":{"input_tokens":12,"output_tokens":40}}""";

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
