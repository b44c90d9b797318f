package io.github.llmthrottle.client;

import java.time.Duration;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.okJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counting input tokens with {@code estimation: count-tokens}, against a real server on
 * loopback that answers both {@code /v1/messages} and {@code /v1/messages/count_tokens}.
 * The model's answer carries no usage, so the input tokens reserved at admission stay
 * taken from its bucket: what the bucket lost is what admission reserved. The clock
 * stands still, so the bucket does not refill meanwhile.
 */
class CountTokensWireMockTests {

    private static final String COUNT_TOKENS = "/v1/messages/count_tokens";

    private static final long INPUT_TOKENS_PER_MINUTE = 100_000;

    /** 40,000 characters of prompt: an estimate of about 10,000 tokens. */
    private static final String LARGE_PROMPT = "a".repeat(40_000);

    private static final String ANSWER_WITHOUT_USAGE = """
            {"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],
             "model":"claude-opus-4-7","stop_reason":"end_turn"}""";

    private final WireMockServer server = new WireMockServer(wireMockConfig().dynamicPort());

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.server.start();
        this.server.stubFor(post("/v1/messages").willReturn(okJson(ANSWER_WITHOUT_USAGE)));
        this.runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                    LlmThrottleAutoConfiguration.class))
            .withUserConfiguration(StandingClock.class)
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=http://localhost:" + this.server.port(),
                    "llm.throttle.clients.anthropic.api-key=test-key",
                    "llm.throttle.clients.anthropic.default-model=claude-opus-4-7",
                    "llm.throttle.clients.anthropic.models.claude-opus-4-7.input-tokens-per-minute="
                            + INPUT_TOKENS_PER_MINUTE,
                    "llm.throttle.clients.anthropic.estimation=count-tokens",
                    "llm.throttle.clients.anthropic.count-tokens.timeout=500ms");
    }

    @AfterEach
    void stop() {
        this.server.stop();
    }

    @Test
    void theProvidersCountOfALargePromptIsWhatAdmissionReserves() {
        this.server.stubFor(post(COUNT_TOKENS).willReturn(okJson("{\"input_tokens\":1234}")));
        this.runner.run((context) -> {
            call(context, LARGE_PROMPT);
            assertThat(reserved(context)).isEqualTo(1234);
            this.server.verify(1,
                    postRequestedFor(urlEqualTo(COUNT_TOKENS)).withHeader("x-api-key", equalTo("test-key"))
                        .withHeader("anthropic-version", equalTo("2023-06-01"))
                        .withRequestBody(matchingJsonPath("$.model", equalTo("claude-opus-4-7")))
                        .withRequestBody(matchingJsonPath("$.messages[0].content", equalTo(LARGE_PROMPT)))
                        .withRequestBody(matchingJsonPath("$.max_tokens", absent()))
                        .withRequestBody(matchingJsonPath("$.stream", absent())));
            // counting is not a model call: one call reached the model
            this.server.verify(1, postRequestedFor(urlEqualTo("/v1/messages")));
        });
    }

    @Test
    void aRateLimitedCountFallsBackToTheEstimateAndTheCallSucceeds() {
        this.server.stubFor(post(COUNT_TOKENS).willReturn(aResponse().withStatus(429)
            .withHeader("retry-after", "30")
            .withBody("{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}")));
        this.runner.run((context) -> {
            call(context, LARGE_PROMPT);
            assertThat(reserved(context)).isBetween(9_000L, 11_000L);
            this.server.verify(1, postRequestedFor(urlEqualTo(COUNT_TOKENS)));
            this.server.verify(1, postRequestedFor(urlEqualTo("/v1/messages")));
        });
    }

    @Test
    void aSlowCountFallsBackToTheEstimateWithinTheTimeout() {
        this.server.stubFor(post(COUNT_TOKENS).willReturn(okJson("{\"input_tokens\":1234}").withFixedDelay(10_000)));
        this.runner.run((context) -> {
            long started = System.nanoTime();
            call(context, LARGE_PROMPT);
            // the timeout is 500 ms; the count would take 10 s
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(8));
            assertThat(reserved(context)).isBetween(9_000L, 11_000L);
        });
    }

    @Test
    void overItsBudgetACallKeepsTheEstimateWithoutAskingTheProvider() {
        this.server.stubFor(post(COUNT_TOKENS).willReturn(okJson("{\"input_tokens\":1234}")));
        this.runner.withPropertyValues("llm.throttle.clients.anthropic.count-tokens.requests-per-minute=1")
            .run((context) -> {
                call(context, LARGE_PROMPT);
                assertThat(reserved(context)).isEqualTo(1234);
                call(context, LARGE_PROMPT);
                assertThat(reserved(context)).isBetween(1234L + 9_000L, 1234L + 11_000L);
                this.server.verify(1, postRequestedFor(urlEqualTo(COUNT_TOKENS)));
                this.server.verify(2, postRequestedFor(urlEqualTo("/v1/messages")));
            });
    }

    @Test
    void aSmallPromptIsNotCounted() {
        this.server.stubFor(post(COUNT_TOKENS).willReturn(okJson("{\"input_tokens\":1234}")));
        this.runner.run((context) -> {
            call(context, "Hello");
            this.server.verify(0, postRequestedFor(urlEqualTo(COUNT_TOKENS)));
            assertThat(reserved(context)).isLessThan(100);
        });
    }

    @Test
    void aClientThatEstimatesNeverCounts() {
        this.server.stubFor(post(COUNT_TOKENS).willReturn(okJson("{\"input_tokens\":1234}")));
        this.runner.withPropertyValues("llm.throttle.clients.anthropic.estimation=characters").run((context) -> {
            call(context, LARGE_PROMPT);
            this.server.verify(0, postRequestedFor(urlEqualTo(COUNT_TOKENS)));
        });
    }

    private static void call(AssertableApplicationContext context, String prompt) {
        String body = "{\"model\":\"claude-opus-4-7\",\"max_tokens\":64,\"stream\":false,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}";
        context.getBean("anthropicRestClient", RestClient.class)
            .post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body(body)
            .retrieve()
            .body(String.class);
    }

    /** The input tokens taken from the model's bucket so far. */
    private static long reserved(AssertableApplicationContext context) {
        Long available = context.getBean(LlmThrottleRegistry.class)
            .getClient("anthropic")
            .model("claude-opus-4-7")
            .getLimiter()
            .state()
            .available()
            .inputTokens();
        assertThat(available).isNotNull();
        return INPUT_TOKENS_PER_MINUTE - available;
    }

    @Configuration(proxyBeanMethods = false)
    static class StandingClock {

        @Bean
        TimeSource standingClock() {
            return FakeClock.at("2026-12-01T15:09:00Z");
        }

    }

}
