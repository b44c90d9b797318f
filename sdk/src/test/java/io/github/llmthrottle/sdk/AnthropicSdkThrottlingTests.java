package io.github.llmthrottle.sdk;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.Interceptor;
import com.anthropic.errors.AnthropicException;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.retry.ResponseBodyReadException;
import io.github.llmthrottle.routing.CircuitState;
import io.github.llmthrottle.sdk.autoconfigure.LlmThrottleSdkAutoConfiguration;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.LlmSimulatorExtension;
import io.github.llmthrottle.test.ModelLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * The official Anthropic SDK ({@code anthropic-java} 2.52, as Spring AI 2.0.1 brings it)
 * used without Spring AI, throttled by the one-line hook
 * {@code AnthropicOkHttpClient.builder().addInterceptor(throttling.interceptor("anthropic"))},
 * against the simulated provider.
 */
class AnthropicSdkThrottlingTests {

    private static final String CLAUDE = "claude-sonnet-4-5";

    @RegisterExtension
    static final LlmSimulatorExtension simulator = LlmSimulatorExtension.of(LlmSimulator.builder()
        .model(CLAUDE, ModelLimits.of(1000, 1_000_000, 100_000))
        .outputTokens(40)
        .noLatency());

    @RegisterExtension
    static final WireMockExtension wireMock = WireMockExtension.newInstance()
        .options(wireMockConfig().dynamicPort())
        .build();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                LlmThrottleAutoConfiguration.class, LlmThrottleSdkAutoConfiguration.class))
        .withPropertyValues("llm.throttle.retry.delay=10ms", "llm.throttle.retry.max-delay=50ms",
                "llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.base-url=" + simulator.baseUrl());

    private static final MessageCreateParams PARAMS = MessageCreateParams.builder()
        .model(CLAUDE)
        .maxTokens(200)
        .addUserMessage("Tell me about token buckets.")
        .build();

    @Test
    void callIsAdmittedOnceAndSettledFromItsUsage() {
        this.runner.run((context) -> {
            AnthropicClient client = AnthropicOkHttpClient.builder()
                .baseUrl(simulator.baseUrl())
                .apiKey("test")
                .addInterceptor(context.getBean(AnthropicSdkThrottling.class).interceptor("anthropic"))
                .maxRetries(0)
                .build();
            Message message = client.messages().create(PARAMS);
            assertThat(message.content()).isNotEmpty();
            ModelTotals.Snapshot totals = model(context).getTotals().snapshot();
            assertThat(totals.calls()).isEqualTo(1);
            assertThat(totals.attempts()).isEqualTo(1);
            assertThat(totals.succeeded()).isEqualTo(1);
            assertThat(totals.outputTokens()).isEqualTo(40);
            assertThat(totals.inputTokens()).isEqualTo(message.usage().inputTokens());
        });
    }

    /**
     * The SDK's own retries are left at their default (2) here: the
     * {@code x-should-retry: false} llm-throttle hands back keeps them from multiplying.
     */
    @Test
    void a429WithRetryAfterIsAttemptedMaxRetriesPlusOneTimesInAll() {
        simulator.simulator()
            .script(CLAUDE, Fault.status(429).retryAfter("0.01"), Fault.status(429).retryAfter("0.01"),
                    Fault.status(429).retryAfter("0.01"), Fault.status(429).retryAfter("0.01"));
        this.runner.withPropertyValues("llm.throttle.retry.max-retries=2").run((context) -> {
            AnthropicClient client = AnthropicOkHttpClient.builder()
                .baseUrl(simulator.baseUrl())
                .apiKey("test")
                .addInterceptor(context.getBean(AnthropicSdkThrottling.class).interceptor("anthropic"))
                .build();
            assertThatThrownBy(() -> client.messages().create(PARAMS)).isInstanceOf(RetriesExhaustedException.class);
            assertThat(simulator.simulator().stats(CLAUDE).attempts()).isEqualTo(3);
            ModelTotals.Snapshot totals = model(context).getTotals().snapshot();
            assertThat(totals.attempts()).isEqualTo(3);
            assertThat(totals.rateLimited()).isEqualTo(3);
        });
    }

    /**
     * The SDK's request timeout is OkHttp's call timeout, whose failure reaches the hook
     * as {@code InterruptedIOException("timeout")} on a thread that was not interrupted:
     * a provider failure, retried, and three of them open a circuit whose threshold is
     * three.
     */
    @Test
    void aHungProviderOpensTheCircuitAfterFailureThresholdTimeouts() {
        simulator.simulator()
            .script(CLAUDE, Fault.delay(Duration.ofSeconds(5)), Fault.delay(Duration.ofSeconds(5)),
                    Fault.delay(Duration.ofSeconds(5)));
        this.runner.withPropertyValues("llm.throttle.retry.max-retries=2", "llm.throttle.circuit.failure-threshold=3")
            .run((context) -> {
                AnthropicClient client = sdkClient(context).timeout(Duration.ofMillis(500)).build();
                assertThatExceptionOfType(RetriesExhaustedException.class)
                    .isThrownBy(() -> client.messages().create(PARAMS))
                    .withMessageContaining("I/O error");
                ThrottledModel model = model(context);
                assertThat(model.getCircuit().state()).isEqualTo(CircuitState.OPEN);
                assertThatExceptionOfType(CircuitOpenException.class)
                    .isThrownBy(() -> client.messages().create(PARAMS));
                assertThat(model.getTotals().snapshot().attempts()).isEqualTo(3);
                assertThat(model.getLimiter().state().inFlight()).isZero();
            });
    }

    /**
     * OkHttp does not stop a blocking read when its thread is interrupted: the call ends
     * at its timeout, as a hung provider's does, but on an interrupted thread, and so is
     * the caller's cancellation.
     */
    @Test
    void aCallWhoseThreadIsInterruptedIsNeitherAFailureNorRetried() {
        simulator.simulator().script(CLAUDE, Fault.delay(Duration.ofSeconds(5)));
        this.runner.withPropertyValues("llm.throttle.retry.max-retries=2", "llm.throttle.circuit.failure-threshold=1")
            .run((context) -> {
                AnthropicClient client = sdkClient(context).timeout(Duration.ofMillis(1500)).build();
                ThrottledModel model = model(context);
                CompletableFuture<Throwable> failure = new CompletableFuture<>();
                Thread caller = new Thread(
                        () -> failure.complete(catchThrowable(() -> client.messages().create(PARAMS))));
                caller.start();
                await().atMost(Duration.ofSeconds(20)).until(() -> model.getLimiter().state().inFlight() == 1);
                caller.interrupt();
                assertThat(failure.get(20, TimeUnit.SECONDS)).isNotNull();
                assertThat(model.getCircuit().state()).isEqualTo(CircuitState.CLOSED);
                assertThat(model.getCircuit().consecutiveFailures()).isZero();
                assertThat(model.getTotals().snapshot().attempts()).isZero();
                assertThat(model.getLimiter().state().inFlight()).isZero();
                assertThat(simulator.simulator().stats(CLAUDE).attempts()).isEqualTo(1);
            });
    }

    /**
     * The SDK's own retries are left at their default (2): a failure llm-throttle does
     * not retry must not be retried by them either.
     */
    @Test
    void aSuccessWhoseBodyBreaksWhileReadIsNotRetriedBecauseItWasBilled() {
        wireMock.stubFor(post(urlPathEqualTo("/v1/messages"))
            .willReturn(aResponse().withHeader("Content-Type", "application/json")
                .withFault(com.github.tomakehurst.wiremock.http.Fault.MALFORMED_RESPONSE_CHUNK)));
        this.runner.withPropertyValues("llm.throttle.clients.anthropic.base-url=" + wireMock.baseUrl())
            .run((context) -> {
                AnthropicClient client = AnthropicOkHttpClient.builder()
                    .baseUrl(wireMock.baseUrl())
                    .apiKey("test")
                    .addInterceptor(context.getBean(AnthropicSdkThrottling.class).interceptor("anthropic"))
                    .build();
                assertThatExceptionOfType(AnthropicException.class).isThrownBy(() -> client.messages().create(PARAMS))
                    .withCauseInstanceOf(ResponseBodyReadException.class);
                wireMock.verify(1, postRequestedFor(urlPathEqualTo("/v1/messages")));
                assertThat(model(context).getLimiter().state().inFlight()).isZero();
            });
    }

    @Test
    void asyncCallIsAdmittedAndSettledOffTheCallersThread() {
        this.runner.run((context) -> {
            AnthropicClient client = AnthropicOkHttpClient.builder()
                .baseUrl(simulator.baseUrl())
                .apiKey("test")
                .addInterceptor(context.getBean(AnthropicSdkThrottling.class).interceptor("anthropic"))
                .maxRetries(0)
                .build();
            Message message = client.async().messages().create(PARAMS).get(30, TimeUnit.SECONDS);
            assertThat(message.content()).isNotEmpty();
            ModelTotals.Snapshot totals = model(context).getTotals().snapshot();
            assertThat(totals.calls()).isEqualTo(1);
            assertThat(totals.outputTokens()).isEqualTo(40);
        });
    }

    @Test
    void interceptorOfAClientThatIsNotConfiguredIsRefusedWithTheConfiguredNames() {
        this.runner.run((context) -> assertThatThrownBy(
                () -> context.getBean(AnthropicSdkThrottling.class).interceptor("claude"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("llm.throttle.clients.claude")
            .hasMessageContaining("[anthropic]"));
    }

    @Test
    void noHookWithoutTheAnthropicSdk() {
        this.runner.withClassLoader(new FilteredClassLoader(Interceptor.class))
            .run((context) -> assertThat(context).doesNotHaveBean(AnthropicSdkThrottling.class));
    }

    private static AnthropicOkHttpClient.Builder sdkClient(ApplicationContext context) {
        return AnthropicOkHttpClient.builder()
            .baseUrl(simulator.baseUrl())
            .apiKey("test")
            .addInterceptor(context.getBean(AnthropicSdkThrottling.class).interceptor("anthropic"))
            .maxRetries(0);
    }

    private static ThrottledModel model(ApplicationContext context) {
        return context.getBean(LlmThrottleRegistry.class).getClient("anthropic").model(CLAUDE);
    }

}
