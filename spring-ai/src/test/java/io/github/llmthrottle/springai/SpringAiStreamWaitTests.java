package io.github.llmthrottle.springai;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.HeldSlot;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.okhttp.DispatcherExecutor;
import io.github.llmthrottle.springai.autoconfigure.LlmThrottleSpringAiAutoConfiguration;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.LlmSimulatorExtension;
import io.github.llmthrottle.test.ModelLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.model.anthropic.autoconfigure.AnthropicChatAutoConfiguration;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Where Spring AI's {@code stream()} (OkHttp's enqueued calls) waits for admission, with
 * Boot's {@code applicationTaskExecutor}: as an entry of the admission queue, holding no
 * thread (neither one of that executor, through the {@link DispatcherExecutor}
 * llm-throttle's customizers give the models' OkHttp dispatchers, nor OkHttp's nor the
 * common pool's), and on that executor once admitted.
 */
class SpringAiStreamWaitTests {

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
                TaskExecutionAutoConfiguration.class, LlmThrottleAutoConfiguration.class,
                LlmThrottleSpringAiAutoConfiguration.class, ToolCallingAutoConfiguration.class,
                AnthropicChatAutoConfiguration.class, OpenAiChatAutoConfiguration.class,
                ChatClientAutoConfiguration.class))
        .withPropertyValues("llm.throttle.retry.delay=10ms", "llm.throttle.retry.max-delay=50ms",
                "spring.ai.anthropic.api-key=test", "spring.ai.anthropic.base-url=" + simulator.baseUrl(),
                "spring.ai.anthropic.chat.model=" + CLAUDE, "spring.ai.anthropic.chat.max-tokens=200",
                "spring.ai.openai.api-key=test", "spring.ai.openai.base-url=" + simulator.simulator().openAiBaseUrl(),
                "spring.ai.openai.chat.model=" + GPT, "spring.ai.openai.chat.max-tokens=200");

    @Test
    void anthropicStreamWaitsForAdmissionHoldingNoThreadAndIsSettled() {
        this.runner
            .withPropertyValues("spring.ai.model.chat=anthropic", "llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + simulator.baseUrl(),
                    "llm.throttle.clients.anthropic.models." + CLAUDE + ".max-concurrency=1")
            .run((context) -> waitsHoldingNoThreadAndIsSettled(context, model(context, "anthropic", CLAUDE)));
    }

    @Test
    void openAiStreamWaitsForAdmissionHoldingNoThreadAndIsSettled() {
        this.runner
            .withPropertyValues("spring.ai.model.chat=openai", "llm.throttle.clients.openai.provider=openai",
                    "llm.throttle.clients.openai.base-url=" + simulator.simulator().openAiBaseUrl(),
                    "llm.throttle.clients.openai.models." + GPT + ".max-concurrency=1")
            .run((context) -> waitsHoldingNoThreadAndIsSettled(context, model(context, "openai", GPT)));
    }

    private static void waitsHoldingNoThreadAndIsSettled(ApplicationContext context, ThrottledModel model)
            throws Exception {
        ThreadPoolTaskExecutor taskExecutor = context
            .getBean(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME, ThreadPoolTaskExecutor.class);
        // the only slot is held here until the stream waits, however slow the machine
        HeldSlot held = HeldSlot.take(model.getLimiter());
        CompletableFuture<List<String>> stream = context.getBean(ChatClient.Builder.class)
            .build()
            .prompt("Tell me about token buckets.")
            .stream()
            .content()
            .collectList()
            .toFuture();
        await().atMost(Duration.ofSeconds(60)).until(() -> model.getLimiter().state().queued().total() == 1);
        assertThat(stacksWaitingForAdmission()).isEmpty();
        assertThat(taskExecutor.getActiveCount()).isZero();
        held.release();
        assertThat(stream.get(30, TimeUnit.SECONDS)).hasSizeGreaterThan(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> model.getLimiter().state().inFlight() == 0);
        ModelTotals.Snapshot totals = model.getTotals().snapshot();
        assertThat(totals.calls()).isEqualTo(1);
        assertThat(totals.outputTokens()).isEqualTo(40);
        assertThat(totals.inputTokens()).isPositive();
    }

    /** The stacks of the threads waiting in llm-throttle's admission. */
    private static List<StackTraceElement[]> stacksWaitingForAdmission() {
        return Thread.getAllStackTraces()
            .values()
            .stream()
            .filter((stack) -> List.of(stack)
                .stream()
                .anyMatch((frame) -> frame.getClassName().equals(ModelLimiter.class.getName())
                        && frame.getMethodName().equals("acquire")))
            .toList();
    }

    private static ThrottledModel model(ApplicationContext context, String client, String model) {
        return context.getBean(LlmThrottleRegistry.class).getClient(client).model(model);
    }

}
