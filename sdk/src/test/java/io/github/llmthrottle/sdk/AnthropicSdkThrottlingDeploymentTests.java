package io.github.llmthrottle.sdk;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.HttpMethod;
import com.anthropic.core.http.HttpRequest;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ProviderTarget;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.client.TwoDeployments;
import io.github.llmthrottle.sdk.autoconfigure.LlmThrottleSdkAutoConfiguration;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.anthropic.AnthropicChatOptions;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A model served by two deployments, each a simulated provider of its own that accepts
 * only its own API key, called through the {@code anthropic-java} SDK hook: {@code east}
 * (the client's base URL, 2 requests per minute) and {@code west} (another base URL, 100
 * requests per minute). The SDK client itself holds a key neither accepts, so a call
 * succeeds only when the deployment's key replaced it. Each call goes to the deployment
 * that admits it soonest; an overloaded or rate-limited deployment hands its calls to the
 * other, for blocking, streamed and asynchronous requests alike, and for a Spring AI
 * {@code ChatClient} on such an SDK client.
 */
class AnthropicSdkThrottlingDeploymentTests {

    private static final String SONNET = "claude-sonnet-4-5";

    private static final String EAST = SONNET + "@east";

    private static final String WEST = SONNET + "@west";

    private static final MessageCreateParams PARAMS = MessageCreateParams.builder()
        .model(SONNET)
        .maxTokens(200)
        .addUserMessage("Tell me about token buckets.")
        .build();

    private TwoDeployments deployments;

    private LlmSimulator east;

    private LlmSimulator west;

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.deployments = TwoDeployments.anthropic(SONNET);
        this.east = this.deployments.east;
        this.west = this.deployments.west;
        this.runner = this.deployments
            .runner("llm.throttle.circuit.failure-threshold=2", "llm.throttle.circuit.open-wait=10m")
            .withConfiguration(AutoConfigurations.of(LlmThrottleSdkAutoConfiguration.class));
    }

    @AfterEach
    void stop() {
        this.deployments.close();
    }

    @Test
    void callsGoToTheDeploymentThatAdmitsThemSoonestEachWithItsOwnKey() {
        this.runner.run((context) -> {
            AnthropicClient client = sdkClient(context);
            // both admit at once: configuration order; then east's two requests a minute
            // are spent, and west admits at once
            for (int i = 0; i < 4; i++) {
                assertThat(client.messages().create(PARAMS).content()).isNotEmpty();
            }
            assertThat(this.east.stats(SONNET).successes()).isEqualTo(2);
            assertThat(this.west.stats(SONNET).successes()).isEqualTo(2);
            assertThat(this.east.stats().otherErrors()).isZero();
            assertThat(this.west.stats().otherErrors()).isZero();
            ThrottledClient throttled = throttledClient(context);
            assertThat(throttled.model(SONNET).getTotals().snapshot().calls()).isEqualTo(4);
            assertThat(throttled.model(EAST).getTotals().snapshot().attempts()).isEqualTo(2);
            assertThat(throttled.model(WEST).getTotals().snapshot().attempts()).isEqualTo(2);
            assertThat(throttled.model(WEST).getTotals().snapshot().outputTokens()).isEqualTo(80);
        });
    }

    @Test
    void aRateLimitedDeploymentIsPausedAndTheOtherTakesItsStreams() {
        this.east.script(SONNET, Fault.status(429).retryAfter("30"));
        this.runner.run((context) -> {
            AnthropicClient client = sdkClient(context);
            for (int i = 0; i < 2; i++) {
                try (StreamResponse<RawMessageStreamEvent> stream = client.messages().createStreaming(PARAMS)) {
                    assertThat(stream.stream().count()).isGreaterThan(2);
                }
            }
            assertThat(this.east.stats(SONNET).attempts()).isEqualTo(1);
            assertThat(this.west.stats(SONNET).successes()).isEqualTo(2);
            ThrottledClient throttled = throttledClient(context);
            assertThat(throttled.model(EAST).getLimiter().state().pausedUntil()).isNotNull();
            ModelTotals.Snapshot west = throttled.model(WEST).getTotals().snapshot();
            assertThat(west.outputTokens()).isEqualTo(80);
            assertThat(west.inputTokens()).isPositive();
            assertThat(throttled.model(EAST).getLimiter().state().inFlight()).isZero();
            assertThat(throttled.model(WEST).getLimiter().state().inFlight()).isZero();
        });
    }

    @Test
    void anAsyncCallFailsOverToo() {
        this.east.outage(SONNET, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            Message message = sdkClient(context).async().messages().create(PARAMS).get(30, TimeUnit.SECONDS);
            assertThat(message.content()).isNotEmpty();
            assertThat(this.east.stats(SONNET).overloaded()).isEqualTo(1);
            assertThat(this.west.stats(SONNET).successes()).isEqualTo(1);
            assertThat(throttledClient(context).model(WEST).getTotals().snapshot().attempts()).isEqualTo(1);
        });
    }

    /**
     * A Spring AI chat model built on a pre-built SDK client skips Spring AI's OkHttp
     * customizers: the hook on that client is what throttles and routes its calls.
     */
    @Test
    void aChatClientOnAnSdkClientWithTheHookFailsOverForCallsAndStreams() {
        this.east.outage(SONNET, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            AnthropicClient client = sdkClient(context);
            AnthropicChatModel chatModel = AnthropicChatModel.builder()
                .anthropicClient(client)
                .anthropicClientAsync(client.async())
                .options(AnthropicChatOptions.builder().model(SONNET).maxTokens(200).build())
                .build();
            ChatClient chatClient = ChatClient.create(chatModel);
            assertThat(chatClient.prompt("Tell me about token buckets.").call().content()).isNotEmpty();
            List<String> chunks = chatClient.prompt("Tell me about token buckets.")
                .stream()
                .content()
                .collectList()
                .block(Duration.ofSeconds(30));
            assertThat(chunks).hasSizeGreaterThan(1);
            // the call failed over (529); the stream as well, after which two failures in
            // a row opened east's circuit
            assertThat(this.east.stats(SONNET).attempts()).isEqualTo(2);
            assertThat(this.east.stats(SONNET).successes()).isZero();
            assertThat(this.west.stats(SONNET).successes()).isEqualTo(2);
            ThrottledClient throttled = throttledClient(context);
            assertThat(throttled.model(SONNET).getTotals().snapshot().succeeded()).isEqualTo(2);
            assertThat(throttled.model(WEST).getTotals().snapshot().outputTokens()).isEqualTo(80);
            assertThat(throttled.model(WEST).getLimiter().state().inFlight()).isZero();
        });
    }

    @Test
    void aRedirectedRequestHasTheTargetsUrlAndQueryAndItsHeadersReplaceTheRequestsOfAnyCase() {
        HttpRequest request = HttpRequest.builder()
            .method(HttpMethod.POST)
            .baseUrl("https://api.anthropic.com")
            .addPathSegments("v1", "messages")
            .putQueryParam("beta", "true")
            .putHeader("X-Api-Key", "sdk-key")
            .putHeader("anthropic-version", "2023-06-01")
            .build();
        ProviderTarget target = new ProviderTarget(EAST,
                URI.create("http://east.example:8080/proxy/v1/messages?beta=true&tag=a%20b"),
                Map.of("x-api-key", "east-key", "x-region", "east"));
        HttpRequest redirected = AnthropicSdkThrottling.redirected(request, target);
        assertThat(redirected.url()).startsWith("http://east.example:8080/proxy/v1/messages?");
        assertThat(redirected.pathSegments()).isEmpty();
        assertThat(redirected.queryParams().values("beta")).containsExactly("true");
        assertThat(redirected.queryParams().values("tag")).containsExactly("a b");
        assertThat(redirected.headers().values("x-api-key")).containsExactly("east-key");
        assertThat(redirected.headers().values("X-Region")).containsExactly("east");
        assertThat(redirected.headers().values("anthropic-version")).isEqualTo(List.of("2023-06-01"));
    }

    @Test
    void aRedirectedRequestLosesTheCredentialHeadersTheTargetRemoves() {
        HttpRequest request = HttpRequest.builder()
            .method(HttpMethod.POST)
            .baseUrl("https://api.anthropic.com")
            .addPathSegments("v1", "messages")
            .putHeader("Authorization", "Bearer sdk-token")
            .putHeader("x-api-key", "sdk-key")
            .build();
        ProviderTarget target = new ProviderTarget(EAST, URI.create("http://east.example/v1/messages"),
                Map.of("x-api-key", "east-key"), Set.of("authorization", "api-key"));
        HttpRequest redirected = AnthropicSdkThrottling.redirected(request, target);
        assertThat(redirected.headers().values("Authorization")).isEmpty();
        assertThat(redirected.headers().values("x-api-key")).containsExactly("east-key");
    }

    private AnthropicClient sdkClient(ApplicationContext context) {
        return AnthropicOkHttpClient.builder()
            .baseUrl(this.east.baseUrl())
            .apiKey("sdk-key")
            .addInterceptor(context.getBean(AnthropicSdkThrottling.class).interceptor("anthropic"))
            .maxRetries(0)
            .build();
    }

    private static ThrottledClient throttledClient(ApplicationContext context) {
        return context.getBean(LlmThrottleRegistry.class).getClient("anthropic");
    }

}
