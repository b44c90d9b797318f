package io.github.llmthrottle.langchain4j;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.anthropic.AnthropicStreamingChatModel;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.langchain4j.autoconfigure.LlmThrottleLangChain4jAutoConfiguration;
import io.github.llmthrottle.limit.HeldSlot;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.LlmSimulatorExtension;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.time.SleeplessTimeSource;
import io.github.llmthrottle.time.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * LangChain4j's own chat models (1.19, OpenAI and Anthropic, blocking and streamed) over
 * its default JDK HTTP client, throttled by the one-line hook
 * {@code .httpClientBuilder(throttling.httpClientBuilder("openai", JdkHttpClient.builder()))},
 * against the simulated provider.
 */
@ExtendWith(OutputCaptureExtension.class)
class LangChain4jThrottlingTests {

    private static final String GPT = "gpt-4o-mini";

    private static final String CLAUDE = "claude-sonnet-4-5";

    private static final String PROMPT = "Tell me about token buckets.";

    @RegisterExtension
    static final LlmSimulatorExtension simulator = LlmSimulatorExtension.of(LlmSimulator.builder()
        .model(GPT, ModelLimits.of(1000, 1_000_000, 100_000))
        .model(CLAUDE, ModelLimits.of(1000, 1_000_000, 100_000))
        .outputTokens(40)
        .noLatency());

    @RegisterExtension
    static final WireMockExtension wireMock = WireMockExtension.newInstance()
        .options(wireMockConfig().dynamicPort())
        .build();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                LlmThrottleAutoConfiguration.class, LlmThrottleLangChain4jAutoConfiguration.class))
        .withPropertyValues("llm.throttle.retry.delay=10ms", "llm.throttle.retry.max-delay=50ms",
                "llm.throttle.clients.openai.provider=openai",
                "llm.throttle.clients.openai.base-url=" + simulator.simulator().openAiBaseUrl(),
                "llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.base-url=" + simulator.simulator().baseUrl());

    private final ExecutorService callers = Executors.newCachedThreadPool();

    @AfterEach
    void stopCallers() {
        this.callers.shutdownNow();
    }

    @Test
    void openAiChatIsAdmittedOnceAndSettledFromItsUsage() {
        this.runner.run((context) -> {
            ChatResponse response = openAi(context, 0).chat(dev.langchain4j.model.chat.request.ChatRequest.builder()
                .messages(dev.langchain4j.data.message.UserMessage.from(PROMPT))
                .build());
            assertThat(response.aiMessage().text()).isNotBlank();
            ModelTotals.Snapshot totals = model(context, "openai", GPT).getTotals().snapshot();
            assertThat(totals.calls()).isEqualTo(1);
            assertThat(totals.attempts()).isEqualTo(1);
            assertThat(totals.succeeded()).isEqualTo(1);
            assertThat(totals.outputTokens()).isEqualTo(40L)
                .isEqualTo(response.tokenUsage().outputTokenCount().longValue());
            assertThat(totals.inputTokens()).isPositive()
                .isEqualTo(response.tokenUsage().inputTokenCount().longValue());
        });
    }

    @Test
    void anthropicChatIsAdmittedOnceAndSettledFromItsUsage() {
        this.runner.run((context) -> {
            ChatResponse response = anthropic(context).chat(dev.langchain4j.model.chat.request.ChatRequest.builder()
                .messages(dev.langchain4j.data.message.UserMessage.from(PROMPT))
                .build());
            assertThat(response.aiMessage().text()).isNotBlank();
            ModelTotals.Snapshot totals = model(context, "anthropic", CLAUDE).getTotals().snapshot();
            assertThat(totals.calls()).isEqualTo(1);
            assertThat(totals.attempts()).isEqualTo(1);
            assertThat(totals.outputTokens()).isEqualTo(40L)
                .isEqualTo(response.tokenUsage().outputTokenCount().longValue());
            assertThat(totals.inputTokens()).isPositive()
                .isEqualTo(response.tokenUsage().inputTokenCount().longValue());
        });
    }

    @Test
    void openAiStreamDeliversEveryPartialResponseAndSettlesUsageFromItsEvents() {
        this.runner.run((context) -> {
            Collected stream = stream(openAiStreaming(context), PROMPT);
            ChatResponse response = stream.done.get(30, TimeUnit.SECONDS);
            assertThat(stream.partials).hasSizeGreaterThan(2);
            assertThat(String.join("", stream.partials)).isEqualTo(response.aiMessage().text());
            ThrottledModel model = settled(model(context, "openai", GPT));
            await().atMost(Duration.ofSeconds(60)).until(() -> threadsInTheHook() == 0);
            ModelTotals.Snapshot totals = model.getTotals().snapshot();
            assertThat(totals.calls()).isEqualTo(1);
            assertThat(totals.attempts()).isEqualTo(1);
            assertThat(totals.outputTokens()).isEqualTo(40L)
                .isEqualTo(response.tokenUsage().outputTokenCount().longValue());
            assertThat(totals.inputTokens()).isPositive()
                .isEqualTo(response.tokenUsage().inputTokenCount().longValue());
            assertThat(model.getLimiter().state().inFlight()).isZero();
        });
    }

    @Test
    void anthropicStreamDeliversEveryPartialResponseAndSettlesUsageFromItsEvents() {
        this.runner.run((context) -> {
            Collected stream = stream(anthropicStreaming(context), PROMPT);
            ChatResponse response = stream.done.get(30, TimeUnit.SECONDS);
            assertThat(stream.partials).hasSizeGreaterThan(2);
            ThrottledModel model = settled(model(context, "anthropic", CLAUDE));
            ModelTotals.Snapshot totals = model.getTotals().snapshot();
            assertThat(totals.calls()).isEqualTo(1);
            assertThat(totals.outputTokens()).isEqualTo(40L)
                .isEqualTo(response.tokenUsage().outputTokenCount().longValue());
            assertThat(totals.inputTokens()).isPositive()
                .isEqualTo(response.tokenUsage().inputTokenCount().longValue());
            assertThat(model.getLimiter().state().inFlight()).isZero();
        });
    }

    @Test
    void a429WithRetryAfterIsAttemptedMaxRetriesPlusOneTimesInAll(CapturedOutput output) {
        simulator.simulator()
            .script(GPT, Fault.status(429).retryAfter("0.01"), Fault.status(429).retryAfter("0.01"),
                    Fault.status(429).retryAfter("0.01"), Fault.status(429).retryAfter("0.01"));
        this.runner.withPropertyValues("llm.throttle.retry.max-retries=2").run((context) -> {
            ChatModel model = openAi(context, 0);
            assertThatThrownBy(() -> model.chat(PROMPT)).isInstanceOf(RetriesExhaustedException.class);
            assertThat(simulator.simulator().stats(GPT).attempts()).isEqualTo(3);
            ModelTotals.Snapshot totals = model(context, "openai", GPT).getTotals().snapshot();
            assertThat(totals.attempts()).isEqualTo(3);
            assertThat(totals.rateLimited()).isEqualTo(3);
            assertThat(output).doesNotContain("maxRetries(0)");
        });
    }

    @Test
    void aModelThatRetriesWhatLlmThrottleGaveUpOnIsWarnedAboutOnce(CapturedOutput output) {
        simulator.simulator()
            .script(GPT, Fault.status(429).retryAfter("0.01"), Fault.status(429).retryAfter("0.01"),
                    Fault.status(429).retryAfter("0.01"));
        this.runner.withPropertyValues("llm.throttle.retry.max-retries=0").run((context) -> {
            // LangChain4j's own retries stacked on llm-throttle's: three calls of one
            ChatModel model = openAi(context, 2);
            assertThatThrownBy(() -> model.chat(PROMPT)).isInstanceOf(RetriesExhaustedException.class);
            assertThat(simulator.simulator().stats(GPT).attempts()).isEqualTo(3);
            assertThat(output).containsOnlyOnce("maxRetries(0)").contains("llm-throttle client 'openai'");
        });
    }

    @Test
    void aStreamRetryWaitsAsTheRetryAfterOfThe429Says() {
        simulator.simulator().script(CLAUDE, Fault.status(429).retryAfter("1"));
        List<Duration> sleeps = new CopyOnWriteArrayList<>();
        this.runner.withPropertyValues("llm.throttle.retry.jitter=none")
            .withBean(TimeSource.class, () -> new SleeplessTimeSource(sleeps::add))
            .run((context) -> {
                Collected stream = stream(anthropicStreaming(context), PROMPT);
                assertThat(stream.done.get(30, TimeUnit.SECONDS).aiMessage().text()).isNotBlank();
                assertThat(sleeps).containsExactly(Duration.ofSeconds(1));
                assertThat(simulator.simulator().stats(CLAUDE).attempts()).isEqualTo(2);
            });
    }

    @Test
    void a529IsRetriedByLlmThrottleAndTheStreamThenSucceeds() {
        simulator.simulator().script(CLAUDE, Fault.overloaded());
        this.runner.run((context) -> {
            Collected stream = stream(anthropicStreaming(context), PROMPT);
            ChatResponse response = stream.done.get(30, TimeUnit.SECONDS);
            assertThat(response.aiMessage().text()).isNotBlank();
            assertThat(simulator.simulator().stats(CLAUDE).attempts()).isEqualTo(2);
            ModelTotals.Snapshot totals = settled(model(context, "anthropic", CLAUDE)).getTotals().snapshot();
            assertThat(totals.calls()).isEqualTo(1);
            assertThat(totals.attempts()).isEqualTo(2);
            assertThat(totals.succeeded()).isEqualTo(1);
        });
    }

    @Test
    void aStreamWaitsForAdmissionInTheQueueWithoutBlockingItsCaller() {
        this.runner.withPropertyValues("llm.throttle.clients.openai.models." + GPT + ".max-concurrency=1")
            .run((context) -> {
                ThrottledModel model = model(context, "openai", GPT);
                // the only slot is held here until the stream has queued, however slow
                // the
                // machine
                HeldSlot held = HeldSlot.take(model.getLimiter());
                Collected second = stream(openAiStreaming(context), PROMPT);
                await().atMost(Duration.ofSeconds(60)).until(() -> model.getLimiter().state().queued().normal() == 1);
                assertThat(second.done).isNotDone();
                held.release();
                assertThat(second.done.get(30, TimeUnit.SECONDS).aiMessage().text()).isNotBlank();
                assertThat(model.getLimiter().state().queued().total()).isZero();
                assertThat(model.getTotals().snapshot().calls()).isEqualTo(1);
            });
    }

    /**
     * A stream waits for its admission holding no thread, and once admitted is read on
     * the application's task executor, Boot's {@code applicationTaskExecutor}: not on a
     * thread of LangChain4j's HTTP client, nor of {@code ForkJoinPool.commonPool()}.
     */
    @Test
    void aStreamWaitsForAdmissionHoldingNoThreadAndRunsOnTheApplicationsTaskExecutor() {
        this.runner.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class))
            .withPropertyValues("llm.throttle.clients.openai.models." + GPT + ".max-concurrency=1",
                    "spring.task.execution.thread-name-prefix=app-task-")
            .run((context) -> {
                ThrottledModel model = model(context, "openai", GPT);
                // the only slot is held here until the stream has queued, however slow
                // the machine
                HeldSlot held = HeldSlot.take(model.getLimiter());
                Collected stream = stream(openAiStreaming(context), PROMPT);
                await().atMost(Duration.ofSeconds(60)).until(() -> model.getLimiter().state().queued().normal() == 1);
                assertThat(threadsWaitingForAdmission()).isEmpty();
                held.release();
                assertThat(stream.done.get(30, TimeUnit.SECONDS).aiMessage().text()).isNotBlank();
                assertThat(stream.completedOn.get()).startsWith("app-task-");
                assertThat(settled(model).getTotals().snapshot().outputTokens()).isEqualTo(40L);
                assertThat(model.getLimiter().state().queued().total()).isZero();
            });
    }

    @Test
    void aStreamTheListenerCancelsGivesBackItsPermitAtOnce() {
        // 40 deltas of 250 ms each: the whole stream would hold its permit for 10 s
        simulator.simulator().setLatency(Duration.ZERO, Duration.ofMillis(250));
        this.runner.run((context) -> {
            ThrottledModel model = model(context, "openai", GPT);
            CompletableFuture<Void> cancelled = new CompletableFuture<>();
            openAiStreaming(context).chat(PROMPT, new StreamingChatResponseHandler() {

                @Override
                public void onPartialResponse(PartialResponse partialResponse, PartialResponseContext handle) {
                    handle.streamingHandle().cancel();
                    cancelled.complete(null);
                }

                @Override
                public void onCompleteResponse(ChatResponse completeResponse) {
                }

                @Override
                public void onError(Throwable error) {
                }

            });
            cancelled.get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(60)).until(() -> model.getLimiter().state().inFlight() == 0);
            // neither the thread that read the stream nor the HTTP client's stays behind
            await().atMost(Duration.ofSeconds(60)).until(() -> threadsInTheHook() == 0);
            assertThat(model.getTotals().snapshot().calls()).isEqualTo(1);
        });
    }

    @Test
    void aRefusalReachesTheStreamingListener() {
        simulator.simulator().script(GPT, Fault.status(429).retryAfter("0.01"), Fault.status(429).retryAfter("0.01"));
        this.runner.withPropertyValues("llm.throttle.retry.max-retries=1").run((context) -> {
            Collected stream = stream(openAiStreaming(context), PROMPT);
            await().atMost(Duration.ofSeconds(30)).until(stream.done::isDone);
            assertThat(stream.done).isCompletedExceptionally();
            assertThatThrownBy(stream.done::join).hasCauseInstanceOf(RetriesExhaustedException.class);
            assertThat(simulator.simulator().stats(GPT).attempts()).isEqualTo(2);
            assertThat(model(context, "openai", GPT).getLimiter().state().inFlight()).isZero();
        });
    }

    @Test
    void anErrorThatIsNotRetriedReachesTheModelAsLangChain4jReportsIt() {
        simulator.simulator().script(GPT, Fault.status(400).message("bad request"));
        this.runner.run((context) -> {
            assertThatThrownBy(() -> openAi(context, 0).chat(PROMPT))
                .isInstanceOf(dev.langchain4j.exception.InvalidRequestException.class)
                .hasMessageContaining("bad request");
            assertThat(simulator.simulator().stats(GPT).attempts()).isEqualTo(1);
        });
    }

    /**
     * LangChain4j's blocking client reads the body below the hook: the call goes through
     * its streaming {@code execute} so that the pipeline reads the body and knows it came
     * with a 200.
     */
    @Test
    void aSuccessWhoseBodyBreaksWhileReadIsNotRetriedBecauseItWasBilled() {
        wireMock.stubFor(post(urlPathEqualTo("/chat/completions"))
            .willReturn(aResponse().withHeader("Content-Type", "application/json")
                .withFault(com.github.tomakehurst.wiremock.http.Fault.MALFORMED_RESPONSE_CHUNK)));
        this.runner
            .withPropertyValues("llm.throttle.retry.max-retries=2",
                    "llm.throttle.clients.openai.base-url=" + wireMock.baseUrl())
            .run((context) -> {
                ChatModel model = OpenAiChatModel.builder()
                    .httpClientBuilder(hook(context, "openai"))
                    .baseUrl(wireMock.baseUrl())
                    .apiKey("test")
                    .modelName(GPT)
                    .maxRetries(0)
                    .build();
                assertThatThrownBy(() -> model.chat(PROMPT)).hasRootCauseInstanceOf(IOException.class)
                    .hasStackTraceContaining("not retried");
                wireMock.verify(1, postRequestedFor(urlPathEqualTo("/chat/completions")));
                assertThat(model(context, "openai", GPT).getLimiter().state().inFlight()).isZero();
            });
    }

    @Test
    void aStreamThatBreaksWhileReadIsNotRetriedAndReachesTheListener() {
        simulator.simulator().script(GPT, Fault.streamCut(2));
        this.runner.withPropertyValues("llm.throttle.retry.max-retries=2").run((context) -> {
            Collected stream = stream(openAiStreaming(context), PROMPT);
            await().atMost(Duration.ofSeconds(30)).until(stream.done::isDone);
            assertThat(stream.done).isCompletedExceptionally();
            assertThat(simulator.simulator().stats(GPT).attempts()).isEqualTo(1);
            await().atMost(Duration.ofSeconds(60))
                .until(() -> model(context, "openai", GPT).getLimiter().state().inFlight() == 0);
        });
    }

    @Test
    void httpClientBuilderOfAClientThatIsNotConfiguredIsRefusedWithTheConfiguredNames() {
        this.runner.run((context) -> assertThatThrownBy(
                () -> context.getBean(LangChain4jThrottling.class).httpClientBuilder("gpt", JdkHttpClient.builder()))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("llm.throttle.clients.gpt")
            .hasMessageContaining("anthropic")
            .hasMessageContaining("openai"));
    }

    @Test
    void httpClientBuilderWithoutADelegateIsRefused() {
        this.runner.run((context) -> assertThatThrownBy(
                () -> context.getBean(LangChain4jThrottling.class).httpClientBuilder("openai", null))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("JdkHttpClient.builder()"));
    }

    @Test
    void noHookWithoutLangChain4jsHttpClient() {
        this.runner.withClassLoader(new FilteredClassLoader(HttpClientBuilder.class))
            .run((context) -> assertThat(context).doesNotHaveBean(LangChain4jThrottling.class));
    }

    private static HttpClientBuilder hook(ApplicationContext context, String client) {
        return context.getBean(LangChain4jThrottling.class).httpClientBuilder(client, JdkHttpClient.builder());
    }

    private static ChatModel openAi(ApplicationContext context, int maxRetries) {
        return OpenAiChatModel.builder()
            .httpClientBuilder(hook(context, "openai"))
            .baseUrl(simulator.simulator().openAiBaseUrl())
            .apiKey("test")
            .modelName(GPT)
            .maxTokens(200)
            .maxRetries(maxRetries)
            .build();
    }

    private static StreamingChatModel openAiStreaming(ApplicationContext context) {
        return OpenAiStreamingChatModel.builder()
            .httpClientBuilder(hook(context, "openai"))
            .baseUrl(simulator.simulator().openAiBaseUrl())
            .apiKey("test")
            .modelName(GPT)
            .maxTokens(200)
            .build();
    }

    private static ChatModel anthropic(ApplicationContext context) {
        return AnthropicChatModel.builder()
            .httpClientBuilder(hook(context, "anthropic"))
            .baseUrl(simulator.simulator().baseUrl() + "/v1")
            .apiKey("test")
            .modelName(CLAUDE)
            .maxTokens(200)
            .maxRetries(0)
            .build();
    }

    private static StreamingChatModel anthropicStreaming(ApplicationContext context) {
        return AnthropicStreamingChatModel.builder()
            .httpClientBuilder(hook(context, "anthropic"))
            .baseUrl(simulator.simulator().baseUrl() + "/v1")
            .apiKey("test")
            .modelName(CLAUDE)
            .maxTokens(200)
            .build();
    }

    private static Collected stream(StreamingChatModel model, String prompt) {
        Collected collected = new Collected();
        model.chat(prompt, new StreamingChatResponseHandler() {

            @Override
            public void onPartialResponse(String partialResponse) {
                collected.partials.add(partialResponse);
            }

            @Override
            public void onCompleteResponse(ChatResponse completeResponse) {
                collected.completedOn.set(Thread.currentThread().getName());
                collected.done.complete(completeResponse);
            }

            @Override
            public void onError(Throwable error) {
                collected.done.completeExceptionally(error);
            }

        });
        return collected;
    }

    /**
     * The model once its one streamed call has ended: LangChain4j's listener completes on
     * the provider's last event, the stream is settled when its body ends just after.
     */
    private static ThrottledModel settled(ThrottledModel model) {
        await().atMost(Duration.ofSeconds(60))
            .until(() -> model.getTotals().snapshot().succeeded() == 1 && model.getLimiter().state().inFlight() == 0);
        return model;
    }

    /** How many threads are inside the hook (reading a stream, or holding one open). */
    private static long threadsInTheHook() {
        return Thread.getAllStackTraces()
            .values()
            .stream()
            .filter((stack) -> List.of(stack)
                .stream()
                .anyMatch((frame) -> frame.getClassName().startsWith(LangChain4jThrottling.class.getName() + "$")
                        || frame.getClassName().startsWith(StreamHandoff.class.getName())))
            .count();
    }

    /** The threads waiting in llm-throttle's admission ({@code ModelLimiter.acquire}). */
    private static List<Thread> threadsWaitingForAdmission() {
        return Thread.getAllStackTraces()
            .entrySet()
            .stream()
            .filter((thread) -> List.of(thread.getValue())
                .stream()
                .anyMatch((frame) -> frame.getClassName().equals(ModelLimiter.class.getName())
                        && frame.getMethodName().equals("acquire")))
            .map(Map.Entry::getKey)
            .toList();
    }

    private static ThrottledModel model(ApplicationContext context, String client, String model) {
        return context.getBean(LlmThrottleRegistry.class).getClient(client).model(model);
    }

    /** What a streaming handler received. */
    private static final class Collected {

        private final List<String> partials = new CopyOnWriteArrayList<>();

        private final CompletableFuture<ChatResponse> done = new CompletableFuture<>();

        private final AtomicReference<String> completedOn = new AtomicReference<>("");

    }

}
