package io.github.llmthrottle.sdk;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientImpl;
import com.openai.client.okhttp.OkHttpClient;
import com.openai.core.ClientOptions;
import com.openai.core.http.HttpMethod;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
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

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A model served by two deployments, each a simulated provider of its own that accepts
 * only its own API key, called through the {@code openai-java} SDK hook: {@code east}
 * (the client's base URL, 2 requests per minute) and {@code west} (another base URL, 100
 * requests per minute). The SDK client itself holds a key neither accepts, so a call
 * succeeds only when the deployment's key replaced it. Each call goes to the deployment
 * that admits it soonest; a rate-limited or overloaded deployment hands its calls to the
 * other, for blocking, streamed and asynchronous requests alike.
 */
class OpenAiSdkThrottlingDeploymentTests {

    private static final String GPT = "gpt-4o-mini";

    private static final String EAST = GPT + "@east";

    private static final String WEST = GPT + "@west";

    private static final ChatCompletionCreateParams PARAMS = ChatCompletionCreateParams.builder()
        .model(GPT)
        .maxCompletionTokens(200)
        .addUserMessage("Tell me about token buckets.")
        .build();

    private static final ChatCompletionCreateParams STREAMED = PARAMS.toBuilder()
        .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build())
        .build();

    private TwoDeployments deployments;

    private LlmSimulator east;

    private LlmSimulator west;

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.deployments = TwoDeployments.openAi(GPT);
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
            OpenAIClient client = sdkClient(context);
            // both admit at once: configuration order; then east's two requests a minute
            // are spent, and west admits at once
            for (int i = 0; i < 4; i++) {
                assertThat(client.chat().completions().create(PARAMS).choices()).isNotEmpty();
            }
            assertThat(this.east.stats(GPT).successes()).isEqualTo(2);
            assertThat(this.west.stats(GPT).successes()).isEqualTo(2);
            assertThat(this.east.stats().otherErrors()).isZero();
            assertThat(this.west.stats().otherErrors()).isZero();
            ThrottledClient throttled = throttledClient(context);
            assertThat(throttled.model(GPT).getTotals().snapshot().calls()).isEqualTo(4);
            assertThat(throttled.model(EAST).getTotals().snapshot().attempts()).isEqualTo(2);
            assertThat(throttled.model(WEST).getTotals().snapshot().attempts()).isEqualTo(2);
            assertThat(throttled.model(WEST).getTotals().snapshot().outputTokens()).isEqualTo(80);
        });
    }

    @Test
    void aRateLimitedDeploymentIsPausedAndTheOtherTakesItsCallsBlockingAndAsync() {
        this.east.script(GPT, Fault.status(429).retryAfter("30"));
        this.runner.run((context) -> {
            OpenAIClient client = sdkClient(context);
            assertThat(client.chat().completions().create(PARAMS).choices()).isNotEmpty();
            ChatCompletion completion = client.async().chat().completions().create(PARAMS).get(30, TimeUnit.SECONDS);
            assertThat(completion.choices()).isNotEmpty();
            // east was asked once, answered 429 with 30 s to wait, and is paused: both
            // calls were answered by west, the first at once after the 429
            assertThat(this.east.stats(GPT).attempts()).isEqualTo(1);
            assertThat(this.east.stats(GPT).rateLimited()).isEqualTo(1);
            assertThat(this.west.stats(GPT).successes()).isEqualTo(2);
            ThrottledClient throttled = throttledClient(context);
            assertThat(throttled.model(EAST).getLimiter().state().pausedUntil()).isNotNull();
            assertThat(throttled.model(WEST).getLimiter().state().pausedUntil()).isNull();
            assertThat(throttled.model(GPT).getTotals().snapshot().succeeded()).isEqualTo(2);
        });
    }

    @Test
    void anOverloadedDeploymentHandsItsStreamsToTheOther() {
        this.east.outage(GPT, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            OpenAIClient client = sdkClient(context);
            try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(STREAMED)) {
                assertThat(stream.stream().count()).isGreaterThan(2);
            }
            AtomicInteger chunks = new AtomicInteger();
            client.async()
                .chat()
                .completions()
                .createStreaming(STREAMED)
                .subscribe((chunk) -> chunks.incrementAndGet())
                .onCompleteFuture()
                .get(30, TimeUnit.SECONDS);
            assertThat(chunks).hasValueGreaterThan(2);
            // the first stream failed over (503); the second as well, after which two
            // failures in a row opened east's circuit
            assertThat(this.east.stats(GPT).attempts()).isEqualTo(2);
            assertThat(this.east.stats(GPT).successes()).isZero();
            assertThat(this.west.stats(GPT).successes()).isEqualTo(2);
            ThrottledClient throttled = throttledClient(context);
            ModelTotals.Snapshot west = throttled.model(WEST).getTotals().snapshot();
            assertThat(west.outputTokens()).isEqualTo(80);
            assertThat(west.inputTokens()).isPositive();
            assertThat(throttled.model(EAST).getLimiter().state().inFlight()).isZero();
            assertThat(throttled.model(WEST).getLimiter().state().inFlight()).isZero();
        });
    }

    @Test
    void aRedirectedRequestHasTheTargetsUrlAndQueryAndItsHeadersReplaceTheRequestsOfAnyCase() {
        HttpRequest request = HttpRequest.builder()
            .method(HttpMethod.POST)
            .baseUrl("https://api.openai.com/v1")
            .addPathSegments("chat", "completions")
            .putHeader("authorization", "Bearer sdk-key")
            .putHeader("OpenAI-Organization", "org-a")
            .build();
        ProviderTarget target = new ProviderTarget(EAST,
                URI.create("https://east.example/openai/deployments/gpt/chat/completions?api-version=2024-10-21"),
                Map.of("Authorization", "Bearer east-key", "openai-organization", "org-b"));
        HttpRequest redirected = OpenAiSdkThrottling.redirected(request, target);
        assertThat(redirected.url())
            .isEqualTo("https://east.example/openai/deployments/gpt/chat/completions?api-version=2024-10-21");
        assertThat(redirected.pathSegments()).isEmpty();
        assertThat(redirected.queryParams().values("api-version")).containsExactly("2024-10-21");
        assertThat(redirected.headers().values("Authorization")).containsExactly("Bearer east-key");
        assertThat(redirected.headers().values("OpenAI-Organization")).containsExactly("org-b");
    }

    @Test
    void aRedirectedRequestLosesTheCredentialHeadersTheTargetRemoves() {
        HttpRequest request = HttpRequest.builder()
            .method(HttpMethod.POST)
            .baseUrl("https://api.openai.com/v1")
            .addPathSegments("chat", "completions")
            .putHeader("authorization", "Bearer sdk-key")
            .build();
        // an Azure deployment: its key in api-key, the caller's Bearer token must not go
        ProviderTarget target = new ProviderTarget(EAST,
                URI.create("https://east.example/openai/deployments/gpt/chat/completions"),
                Map.of("api-key", "east-key"), Set.of("authorization", "x-api-key"));
        HttpRequest redirected = OpenAiSdkThrottling.redirected(request, target);
        assertThat(redirected.headers().values("Authorization")).isEmpty();
        assertThat(redirected.headers().values("api-key")).containsExactly("east-key");
    }

    private OpenAIClient sdkClient(ApplicationContext context) {
        OpenAiSdkThrottling throttling = context.getBean(OpenAiSdkThrottling.class);
        return new OpenAIClientImpl(ClientOptions.builder()
            .baseUrl(this.east.openAiBaseUrl())
            .apiKey("sdk-key")
            .httpClient(throttling.httpClient("openai", OkHttpClient.builder().build()))
            .maxRetries(0)
            .build());
    }

    private static ThrottledClient throttledClient(ApplicationContext context) {
        return context.getBean(LlmThrottleRegistry.class).getClient("openai");
    }

}
