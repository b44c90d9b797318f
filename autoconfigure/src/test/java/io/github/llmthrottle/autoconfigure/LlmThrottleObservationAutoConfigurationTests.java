package io.github.llmthrottle.autoconfigure;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.observation.DefaultLlmThrottleAttemptObservationConvention;
import io.github.llmthrottle.observation.DefaultLlmThrottleCallObservationConvention;
import io.github.llmthrottle.observation.LlmThrottleAttemptObservationContext;
import io.github.llmthrottle.observation.LlmThrottleAttemptObservationConvention;
import io.github.llmthrottle.observation.LlmThrottleCallObservationContext;
import io.github.llmthrottle.observation.LlmThrottleCallObservationConvention;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientObservationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.test.util.ReflectionTestUtils;
import org.springframework.web.client.RestClient;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The observations of throttled calls in an application: made in its
 * {@link ObservationRegistry} when it has one, nested in Spring's own
 * {@code http.client.requests}, shaped by the application's conventions when it declares
 * any, and not made at all without a registry.
 */
class LlmThrottleObservationAutoConfigurationTests {

    private static final String SUCCESS = """
            {"id":"msg_1","type":"message","content":[{"type":"text","text":"Hi"}],\
            "usage":{"input_tokens":12,"output_tokens":40}}""";

    private final WireMockServer server = new WireMockServer(wireMockConfig().dynamicPort());

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.server.start();
        this.server.stubFor(post("/v1/messages").willReturn(aResponse().withStatus(200)
            .withHeader("content-type", "application/json")
            .withHeader("request-id", "req_wire")
            .withBody(SUCCESS)));
        this.runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                            RestClientObservationAutoConfiguration.class, LlmThrottleAutoConfiguration.class))
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=http://localhost:" + this.server.port(),
                    "llm.throttle.clients.anthropic.api-key=test-key",
                    "llm.throttle.clients.anthropic.default-model=claude-opus-4-7");
    }

    @AfterEach
    void stop() {
        this.server.stop();
    }

    @Test
    void withAnObservationRegistryCallsAndAttemptsAreObservedInsideSpringsOwnObservation() {
        this.runner.withBean(ObservationRegistry.class, TestObservationRegistry::create).run((context) -> {
            call(context);
            TestObservationRegistry observations = (TestObservationRegistry) context.getBean(ObservationRegistry.class);
            assertThat(observations).hasNumberOfObservationsWithNameEqualTo("http.client.requests", 1)
                .hasObservationWithNameEqualTo("llm.throttle.call")
                .that()
                .hasBeenStopped()
                .hasLowCardinalityKeyValue("outcome", "success")
                .hasHighCardinalityKeyValue("provider.request.id", "req_wire")
                .hasParentObservationContextSatisfying(
                        (parent) -> assertThat(parent.getName()).isEqualTo("http.client.requests"))
                .backToTestObservationRegistry()
                .hasObservationWithNameEqualTo("llm.throttle.attempt")
                .that()
                .hasBeenStopped()
                .hasParentObservationContextSatisfying(
                        (parent) -> assertThat(parent.getName()).isEqualTo("llm.throttle.call"));
        });
    }

    @Test
    void withoutAnObservationRegistryNoObservationIsMade() {
        this.runner.run((context) -> {
            assertThat(context).doesNotHaveBean(ObservationRegistry.class);
            call(context);
            Object observations = ReflectionTestUtils
                .getField(context.getBean(LlmThrottleRegistry.class).getClient("anthropic"), "observations");
            assertThat(ReflectionTestUtils.getField(observations, "registry")).isSameAs(ObservationRegistry.NOOP);
        });
    }

    @Test
    void theApplicationsConventionsShapeTheObservations() {
        this.runner.withBean(ObservationRegistry.class, TestObservationRegistry::create)
            .withBean(LlmThrottleCallObservationConvention.class, TeamCallConvention::new)
            .withBean(LlmThrottleAttemptObservationConvention.class, TeamAttemptConvention::new)
            .run((context) -> {
                call(context);
                TestObservationRegistry observations = (TestObservationRegistry) context
                    .getBean(ObservationRegistry.class);
                assertThat(observations).hasObservationWithNameEqualTo("llm.throttle.call")
                    .that()
                    .hasLowCardinalityKeyValue("team", "search")
                    .hasLowCardinalityKeyValue("outcome", "success")
                    .backToTestObservationRegistry()
                    .hasObservationWithNameEqualTo("llm.throttle.attempt")
                    .that()
                    .hasLowCardinalityKeyValue("team", "search");
            });
    }

    private static void call(AssertableApplicationContext context) {
        RestClient client = context.getBean("anthropicRestClient", RestClient.class);
        String answer = client.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body("{\"model\":\"claude-opus-4-7\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}")
            .retrieve()
            .body(String.class);
        assertThat(answer).contains("msg_1");
    }

    static class TeamCallConvention extends DefaultLlmThrottleCallObservationConvention {

        @Override
        public KeyValues getLowCardinalityKeyValues(LlmThrottleCallObservationContext context) {
            return super.getLowCardinalityKeyValues(context).and("team", "search");
        }

    }

    static class TeamAttemptConvention extends DefaultLlmThrottleAttemptObservationConvention {

        @Override
        public KeyValues getLowCardinalityKeyValues(LlmThrottleAttemptObservationContext context) {
            return super.getLowCardinalityKeyValues(context).and("team", "search");
        }

    }

}
