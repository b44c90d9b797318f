package io.github.llmthrottle.sdk;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.RequestOptions;
import com.anthropic.core.http.HttpClient;
import com.anthropic.core.http.HttpMethod;
import com.anthropic.core.http.HttpRequest;
import com.anthropic.core.http.HttpRequestBody;
import com.anthropic.core.http.HttpResponse;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.sdk.autoconfigure.LlmThrottleSdkAutoConfiguration;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.LlmSimulatorExtension;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An SDK's asynchronous call waits for its first admission as a queue entry: the
 * application's executor runs it only once it is admitted, so calls held back by the
 * limits occupy none of its threads.
 */
class SdkAsyncAdmissionTests {

    private static final String CLAUDE = "claude-sonnet-4-5";

    @RegisterExtension
    static final LlmSimulatorExtension simulator = LlmSimulatorExtension.of(LlmSimulator.builder()
        .model(CLAUDE, ModelLimits.of(1000, 1_000_000, 100_000))
        .outputTokens(40)
        .noLatency());

    private static final MessageCreateParams PARAMS = MessageCreateParams.builder()
        .model(CLAUDE)
        .maxTokens(200)
        .addUserMessage("Tell me about token buckets.")
        .build();

    private final ExecutorService pool = Executors.newFixedThreadPool(2);

    private final AtomicInteger submitted = new AtomicInteger();

    private final Executor countingExecutor = (task) -> {
        this.submitted.incrementAndGet();
        this.pool.execute(task);
    };

    // one request a minute on a clock the test moves: the first call is admitted, each
    // other waits for a refill
    private final FakeClock clock = FakeClock.at("2026-06-15T10:00:00Z");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                LlmThrottleAutoConfiguration.class, LlmThrottleSdkAutoConfiguration.class))
        .withBean("appExecutor", Executor.class, () -> this.countingExecutor)
        .withBean(TimeSource.class, () -> this.clock)
        .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.base-url=" + simulator.baseUrl(),
                "llm.throttle.clients.anthropic.models." + CLAUDE + ".requests-per-minute=1",
                "llm.throttle.queue.max-wait=10m");

    @AfterEach
    void stopPool() {
        this.pool.shutdownNow();
    }

    @Test
    void callsHeldBackByTheLimitsWaitWithoutAnExecutorThread() {
        this.runner.run((context) -> {
            AnthropicClient client = AnthropicOkHttpClient.builder()
                .baseUrl(simulator.baseUrl())
                .apiKey("test")
                .addInterceptor(context.getBean(AnthropicSdkThrottling.class).interceptor("anthropic"))
                .maxRetries(0)
                .build();
            List<CompletableFuture<Message>> calls = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                calls.add(client.async().messages().create(PARAMS));
            }
            ThrottledModel model = model(context);
            await().atMost(60, TimeUnit.SECONDS)
                .untilAsserted(() -> assertThat(model.getLimiter().state().queued().total()).isEqualTo(4));
            // only the admitted call went to the executor; before, all five waited there
            assertThat(this.submitted).hasValue(1);
            for (int refill = 1; refill <= 4; refill++) {
                this.clock.advance(Duration.ofMinutes(1));
                int queued = 4 - refill;
                await().atMost(60, TimeUnit.SECONDS)
                    .untilAsserted(() -> assertThat(model.getLimiter().state().queued().total()).isEqualTo(queued));
                assertThat(this.submitted).hasValue(refill + 1);
            }
            for (CompletableFuture<Message> call : calls) {
                assertThat(call.get(60, TimeUnit.SECONDS).content()).isNotEmpty();
            }
            await().atMost(60, TimeUnit.SECONDS)
                .untilAsserted(() -> assertThat(model.getLimiter().state().inFlight()).isZero());
            assertThat(simulator.simulator().stats(CLAUDE).attempts()).isEqualTo(5);
        });
    }

    @Test
    void aCallCancelledWhileItWaitsLeavesTheQueueUnsent() {
        this.runner.run((context) -> {
            AnthropicSdkThrottling hook = context.getBean(AnthropicSdkThrottling.class);
            AnthropicClient client = AnthropicOkHttpClient.builder()
                .baseUrl(simulator.baseUrl())
                .apiKey("test")
                .addInterceptor(hook.interceptor("anthropic"))
                .maxRetries(0)
                .build();
            assertThat(client.messages().create(PARAMS).content()).isNotEmpty();
            ThrottledModel model = model(context);
            // the hook's future itself: the SDK's own future does not pass a cancel on
            HttpClient throttled = hook.interceptor("anthropic").intercept(notCalled());
            HttpRequest request = HttpRequest.builder()
                .method(HttpMethod.POST)
                .baseUrl(simulator.baseUrl())
                .addPathSegments("v1", "messages")
                .body(HttpRequestBody.ofJson(Map.of("model", CLAUDE, "max_tokens", 200, "messages",
                        List.of(Map.of("role", "user", "content", "Tell me about token buckets.")))))
                .build();
            CompletableFuture<HttpResponse> waiting = throttled.executeAsync(request, RequestOptions.none());
            await().atMost(60, TimeUnit.SECONDS)
                .untilAsserted(() -> assertThat(model.getLimiter().state().queued().total()).isEqualTo(1));
            waiting.cancel(false);
            await().atMost(60, TimeUnit.SECONDS)
                .untilAsserted(() -> assertThat(model.getLimiter().state().queued().total()).isZero());
            assertThat(model.getLimiter().state().inFlight()).isZero();
            assertThat(this.submitted).hasValue(0);
            assertThat(simulator.simulator().stats(CLAUDE).attempts()).isEqualTo(1);
        });
    }

    private static HttpClient notCalled() {
        return new HttpClient() {

            @Override
            public HttpResponse execute(HttpRequest request, RequestOptions options) {
                throw new AssertionError("A call cancelled while it waited was sent");
            }

            @Override
            public CompletableFuture<HttpResponse> executeAsync(HttpRequest request, RequestOptions options) {
                throw new AssertionError("A call cancelled while it waited was sent");
            }

            @Override
            public void close() {
            }

        };
    }

    private static ThrottledModel model(ApplicationContext context) {
        return context.getBean(LlmThrottleRegistry.class).getClient("anthropic").model(CLAUDE);
    }

}
