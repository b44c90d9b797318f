package io.github.llmthrottle.springai;

import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import com.anthropic.errors.AnthropicIoException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.AdmissionRecorder;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottleObserver;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.HeldSlot;
import io.github.llmthrottle.springai.autoconfigure.LlmThrottleSpringAiAutoConfiguration;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.LlmSimulatorExtension;
import io.github.llmthrottle.test.ModelLimits;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.model.anthropic.autoconfigure.AnthropicChatAutoConfiguration;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Spring AI 2.0.1's own Anthropic and OpenAI chat models and {@code ChatClient}, through
 * Spring AI's auto-configurations and llm-throttle's, against the simulated provider:
 * every HTTP call they make is admitted, attempted, retried and settled by the configured
 * client whose base URL it goes to.
 */
class SpringAiThrottlingTests {

    private static final String CLAUDE = "claude-sonnet-4-5";

    private static final String GPT = "gpt-4o-mini";

    @RegisterExtension
    static final LlmSimulatorExtension simulator = LlmSimulatorExtension.of(LlmSimulator.builder()
        .model(CLAUDE, ModelLimits.of(1000, 1_000_000, 100_000))
        .model(GPT, ModelLimits.of(1000, 1_000_000, 100_000))
        .outputTokens(40)
        .noLatency());

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                LlmThrottleAutoConfiguration.class, LlmThrottleSpringAiAutoConfiguration.class,
                ToolCallingAutoConfiguration.class, AnthropicChatAutoConfiguration.class,
                OpenAiChatAutoConfiguration.class, ChatClientAutoConfiguration.class))
        .withPropertyValues("llm.throttle.retry.delay=10ms", "llm.throttle.retry.max-delay=50ms",
                "spring.ai.anthropic.api-key=test", "spring.ai.anthropic.base-url=" + simulator.baseUrl(),
                "spring.ai.anthropic.chat.model=" + CLAUDE, "spring.ai.anthropic.chat.max-tokens=200",
                "spring.ai.openai.api-key=test", "spring.ai.openai.base-url=" + simulator.simulator().openAiBaseUrl(),
                "spring.ai.openai.chat.model=" + GPT, "spring.ai.openai.chat.max-tokens=200");

    // one simulator serves both dialects on one host: each test configures the one client
    // its provider's requests go to
    private final ApplicationContextRunner anthropic = this.runner.withPropertyValues("spring.ai.model.chat=anthropic",
            "llm.throttle.clients.anthropic.provider=anthropic",
            "llm.throttle.clients.anthropic.base-url=" + simulator.baseUrl());

    private final ApplicationContextRunner openAi = this.runner.withPropertyValues("spring.ai.model.chat=openai",
            "llm.throttle.clients.openai.provider=openai",
            "llm.throttle.clients.openai.base-url=" + simulator.simulator().openAiBaseUrl());

    @Test
    void anthropicCallIsAdmittedOnceAndSettledFromItsUsage() {
        this.anthropic.run((context) -> {
            String answer = chatClient(context).prompt("Tell me about token buckets.").call().content();
            assertThat(answer).isNotBlank();
            ModelTotals.Snapshot totals = model(context, "anthropic", CLAUDE).getTotals().snapshot();
            assertThat(totals.calls()).isEqualTo(1);
            assertThat(totals.attempts()).isEqualTo(1);
            assertThat(totals.succeeded()).isEqualTo(1);
            assertThat(totals.outputTokens()).isEqualTo(40);
            assertThat(totals.inputTokens()).isPositive();
            assertThat(simulator.simulator().stats(CLAUDE).attempts()).isEqualTo(1);
        });
    }

    @Test
    void anthropicStreamDeliversEveryChunkAndSettlesUsageFromItsEvents() {
        this.anthropic.run((context) -> {
            List<String> chunks = chatClient(context).prompt("Tell me about token buckets.")
                .stream()
                .content()
                .collectList()
                .block(Duration.ofSeconds(30));
            assertThat(chunks).hasSizeGreaterThan(1);
            ThrottledModel model = model(context, "anthropic", CLAUDE);
            ModelTotals.Snapshot totals = model.getTotals().snapshot();
            assertThat(totals.calls()).isEqualTo(1);
            assertThat(totals.attempts()).isEqualTo(1);
            assertThat(totals.outputTokens()).isEqualTo(40);
            assertThat(totals.inputTokens()).isPositive();
            assertThat(model.getLimiter().state().inFlight()).isZero();
        });
    }

    @Test
    void openAiCallIsAdmittedOnceAndSettledFromItsUsage() {
        this.openAi.run((context) -> {
            String answer = chatClient(context).prompt("Tell me about token buckets.").call().content();
            assertThat(answer).isNotBlank();
            ModelTotals.Snapshot totals = model(context, "openai", GPT).getTotals().snapshot();
            assertThat(totals.calls()).isEqualTo(1);
            assertThat(totals.attempts()).isEqualTo(1);
            assertThat(totals.outputTokens()).isEqualTo(40);
            assertThat(totals.inputTokens()).isPositive();
        });
    }

    @Test
    void openAiStreamDeliversEveryChunkAndSettlesUsageFromItsEvents() {
        this.openAi.run((context) -> {
            List<String> chunks = chatClient(context).prompt("Tell me about token buckets.")
                .stream()
                .content()
                .collectList()
                .block(Duration.ofSeconds(30));
            assertThat(chunks).hasSizeGreaterThan(1);
            ThrottledModel model = model(context, "openai", GPT);
            ModelTotals.Snapshot totals = model.getTotals().snapshot();
            assertThat(totals.calls()).isEqualTo(1);
            assertThat(totals.attempts()).isEqualTo(1);
            assertThat(totals.outputTokens()).isEqualTo(40);
            assertThat(model.getLimiter().state().inFlight()).isZero();
        });
    }

    /**
     * The default base URLs above are Spring AI's forms: Anthropic's without {@code /v1},
     * OpenAI's with it. The configured clients match the other way round too.
     */
    @Test
    void configuredBaseUrlMatchesWithOrWithoutV1() {
        this.runner
            .withPropertyValues("spring.ai.model.chat=anthropic", "llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + simulator.simulator().openAiBaseUrl())
            .run((context) -> {
                chatClient(context).prompt("hi").call().content();
                assertThat(model(context, "anthropic", CLAUDE).getTotals().snapshot().calls()).isEqualTo(1);
            });
        this.runner
            .withPropertyValues("spring.ai.model.chat=openai", "llm.throttle.clients.openai.provider=openai",
                    "llm.throttle.clients.openai.base-url=" + simulator.baseUrl())
            .run((context) -> {
                chatClient(context).prompt("hi").call().content();
                assertThat(model(context, "openai", GPT).getTotals().snapshot().calls()).isEqualTo(1);
            });
    }

    @Test
    void anthropic429WithRetryAfterIsAttemptedMaxRetriesPlusOneTimesInAll() {
        simulator.simulator()
            .script(CLAUDE, Fault.status(429).retryAfter("0.01"), Fault.status(429).retryAfter("0.01"),
                    Fault.status(429).retryAfter("0.01"), Fault.status(429).retryAfter("0.01"));
        this.anthropic.withPropertyValues("llm.throttle.retry.max-retries=2", "spring.ai.anthropic.max-retries=3")
            .run((context) -> {
                assertThatThrownBy(() -> chatClient(context).prompt("Tell me about token buckets.").call().content())
                    .isInstanceOf(RetriesExhaustedException.class);
                assertThat(simulator.simulator().stats(CLAUDE).attempts()).isEqualTo(3);
                assertThat(model(context, "anthropic", CLAUDE).getTotals().snapshot().attempts()).isEqualTo(3);
            });
    }

    @Test
    void openAi429WithRetryAfterIsAttemptedMaxRetriesPlusOneTimesInAll() {
        simulator.simulator()
            .script(GPT, Fault.status(429).retryAfter("0.01"), Fault.status(429).retryAfter("0.01"),
                    Fault.status(429).retryAfter("0.01"), Fault.status(429).retryAfter("0.01"));
        this.openAi.withPropertyValues("llm.throttle.retry.max-retries=2", "spring.ai.openai.max-retries=3")
            .run((context) -> {
                assertThatThrownBy(() -> chatClient(context).prompt("Tell me about token buckets.").call().content())
                    .isInstanceOf(LlmThrottleException.class);
                assertThat(simulator.simulator().stats(GPT).attempts()).isEqualTo(3);
            });
    }

    /**
     * On the async path OkHttp reports an interceptor's failure as an I/O error: the
     * throttling failure is its cause, and the SDK (whose async retry loop sees it
     * wrapped in a {@code CompletionException}) does not attempt it again.
     */
    @Test
    void anthropicStream429WithRetryAfterIsAttemptedMaxRetriesPlusOneTimesInAll() {
        simulator.simulator()
            .script(CLAUDE, Fault.status(429).retryAfter("0.01"), Fault.status(429).retryAfter("0.01"),
                    Fault.status(429).retryAfter("0.01"), Fault.status(429).retryAfter("0.01"));
        this.anthropic.withPropertyValues("llm.throttle.retry.max-retries=2", "spring.ai.anthropic.max-retries=3")
            .run((context) -> {
                Throwable failure = catchThrowable(() -> streamAll(context));
                assertThat(failure).isInstanceOf(AnthropicIoException.class);
                assertThat(throttlingCause(failure)).isInstanceOf(RetriesExhaustedException.class);
                assertThat(simulator.simulator().stats(CLAUDE).attempts()).isEqualTo(3);
            });
    }

    @Test
    void openAiStream429WithRetryAfterIsAttemptedMaxRetriesPlusOneTimesInAll() {
        simulator.simulator()
            .script(GPT, Fault.status(429).retryAfter("0.01"), Fault.status(429).retryAfter("0.01"),
                    Fault.status(429).retryAfter("0.01"), Fault.status(429).retryAfter("0.01"));
        this.openAi.withPropertyValues("llm.throttle.retry.max-retries=2", "spring.ai.openai.max-retries=3")
            .run((context) -> {
                Throwable failure = catchThrowable(() -> streamAll(context));
                assertThat(throttlingCause(failure)).isInstanceOf(RetriesExhaustedException.class);
                assertThat(simulator.simulator().stats(GPT).attempts()).isEqualTo(3);
            });
    }

    @Test
    void advisorParametersGiveACallItsPriorityAndTenant() {
        List<String> admitted = new CopyOnWriteArrayList<>();
        this.anthropic.withBean(ThrottleObserver.class, () -> new AdmissionRecorder(admitted)).run((context) -> {
            chatClient(context).prompt("hi")
                .advisors((advisor) -> advisor.param(ThrottleParametersAdvisor.PRIORITY, "realtime")
                    .param(ThrottleParametersAdvisor.TENANT, "acme"))
                .call()
                .content();
            assertThat(admitted).containsExactly("REALTIME/acme");
        });
    }

    @Test
    void advisorParametersGiveAnAnthropicStreamItsPriorityAndTenantOnAnotherThread() {
        List<String> admitted = new CopyOnWriteArrayList<>();
        this.anthropic.withBean(ThrottleObserver.class, () -> new AdmissionRecorder(admitted)).run((context) -> {
            List<String> chunks = chatClient(context).prompt("hi")
                .advisors((advisor) -> advisor.param(ThrottleParametersAdvisor.PRIORITY, Priority.BATCH)
                    .param(ThrottleParametersAdvisor.TENANT, "acme"))
                .stream()
                .content()
                .collectList()
                .block(Duration.ofSeconds(30));
            assertThat(chunks).isNotEmpty();
            assertThat(admitted).containsExactly("BATCH/acme");
        });
    }

    @Test
    void advisorParametersGiveAnOpenAiStreamItsPriorityAndTenantOnAnotherThread() {
        List<String> admitted = new CopyOnWriteArrayList<>();
        this.openAi.withBean(ThrottleObserver.class, () -> new AdmissionRecorder(admitted)).run((context) -> {
            List<String> chunks = chatClient(context).prompt("hi")
                .advisors((advisor) -> advisor.param(ThrottleParametersAdvisor.PRIORITY, "REALTIME")
                    .param(ThrottleParametersAdvisor.TENANT, "globex"))
                .stream()
                .content()
                .collectList()
                .block(Duration.ofSeconds(30));
            assertThat(chunks).isNotEmpty();
            assertThat(admitted).containsExactly("REALTIME/globex");
        });
    }

    @Test
    void realtimeStreamOvertakesQueuedBatchStreams() {
        List<String> admitted = new CopyOnWriteArrayList<>();
        this.anthropic.withPropertyValues("llm.throttle.clients.anthropic.models." + CLAUDE + ".max-concurrency=1")
            .withBean(ThrottleObserver.class, () -> new AdmissionRecorder(admitted))
            .run((context) -> {
                ChatClient chatClient = chatClient(context);
                ThrottledModel model = model(context, "anthropic", CLAUDE);
                // the only slot is held here until the other streams queue, however slow
                // the machine
                HeldSlot held = HeldSlot.take(model.getLimiter());
                List<CompletableFuture<List<String>>> streams = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    streams.add(stream(chatClient, Priority.BATCH));
                }
                await().atMost(Duration.ofSeconds(60)).until(() -> model.getLimiter().state().queued().batch() == 3);
                streams.add(stream(chatClient, Priority.REALTIME));
                await().atMost(Duration.ofSeconds(60)).until(() -> model.getLimiter().state().queued().realtime() == 1);
                held.release();
                CompletableFuture.allOf(streams.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
                assertThat(admitted).containsExactly("REALTIME/null", "BATCH/null", "BATCH/null", "BATCH/null");
            });
    }

    @Test
    void callInterruptedWhileQueuedEndsWithTheInterruptionAndIsNeverSent() {
        this.anthropic.withPropertyValues("llm.throttle.clients.anthropic.models." + CLAUDE + ".max-concurrency=1")
            .run((context) -> {
                ChatClient chatClient = chatClient(context);
                ThrottledModel model = model(context, "anthropic", CLAUDE);
                // the only slot is held here until the call is interrupted, however slow
                // the machine
                HeldSlot held = HeldSlot.take(model.getLimiter());
                AtomicReference<Throwable> failure = new AtomicReference<>();
                AtomicBoolean interruptFlagKept = new AtomicBoolean();
                Thread queued = new Thread(() -> {
                    try {
                        chatClient.prompt("hi").call().content();
                    }
                    catch (Throwable ex) {
                        failure.set(ex);
                    }
                    interruptFlagKept.set(Thread.currentThread().isInterrupted());
                });
                queued.start();
                await().atMost(Duration.ofSeconds(60)).until(() -> model.getLimiter().state().queued().normal() == 1);
                queued.interrupt();
                queued.join(10_000);
                assertThat(interruptFlagKept).isTrue();
                assertThat(causes(failure.get())).hasAtLeastOneElementOfType(InterruptedIOException.class);
                assertThat(model.getLimiter().state().queued().normal()).isZero();
                held.release();
                assertThat(chatClient.prompt("hi").call().content()).isNotBlank();
                assertThat(simulator.simulator().stats(CLAUDE).attempts()).isEqualTo(1);
            });
    }

    @Test
    void callWithoutAdvisorParametersIsAdmittedAsNormal() {
        List<String> admitted = new CopyOnWriteArrayList<>();
        this.anthropic.withBean(ThrottleObserver.class, () -> new AdmissionRecorder(admitted)).run((context) -> {
            chatClient(context).prompt("hi").stream().content().collectList().block(Duration.ofSeconds(30));
            assertThat(admitted).containsExactly("NORMAL/null");
        });
    }

    private static CompletableFuture<List<String>> stream(ChatClient chatClient, Priority priority) {
        return chatClient.prompt("Tell me about token buckets.")
            .advisors((advisor) -> advisor.param(ThrottleParametersAdvisor.PRIORITY, priority))
            .stream()
            .content()
            .collectList()
            .toFuture();
    }

    private static List<String> streamAll(ApplicationContext context) {
        return chatClient(context).prompt("Tell me about token buckets.")
            .stream()
            .content()
            .collectList()
            .block(Duration.ofSeconds(30));
    }

    private static List<Throwable> causes(@Nullable Throwable failure) {
        List<Throwable> causes = new ArrayList<>();
        for (Throwable cause = failure; cause != null && causes.size() < 10; cause = cause.getCause()) {
            causes.add(cause);
        }
        return causes;
    }

    private static @Nullable Throwable throttlingCause(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof LlmThrottleException) {
                return cause;
            }
        }
        return null;
    }

    private static ChatClient chatClient(ApplicationContext context) {
        return context.getBean(ChatClient.Builder.class).build();
    }

    private static ThrottledModel model(ApplicationContext context, String client, String model) {
        return context.getBean(LlmThrottleRegistry.class).getClient(client).model(model);
    }

}
