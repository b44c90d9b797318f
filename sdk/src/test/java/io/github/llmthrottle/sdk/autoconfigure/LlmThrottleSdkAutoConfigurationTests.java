package io.github.llmthrottle.sdk.autoconfigure;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.sdk.AnthropicSdkThrottling;
import io.github.llmthrottle.sdk.OpenAiSdkThrottling;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.test.util.ReflectionTestUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of {@link LlmThrottleSdkAutoConfiguration}: where the SDKs' asynchronous requests
 * wait for admission.
 */
class LlmThrottleSdkAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(
                AutoConfigurations.of(LlmThrottleAutoConfiguration.class, LlmThrottleSdkAutoConfiguration.class))
        .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.base-url=http://localhost:1");

    @Test
    void asynchronousRequestsWaitOnTheApplicationsTaskExecutor() {
        this.runner.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class)).run((context) -> {
            Object taskExecutor = context.getBean(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME);
            assertThat(context.getBean(AnthropicSdkThrottling.class)).extracting("asyncExecutor")
                .isSameAs(taskExecutor);
            assertThat(context.getBean(OpenAiSdkThrottling.class)).extracting("asyncExecutor").isSameAs(taskExecutor);
        });
    }

    @Test
    void anExecutorOfTheApplicationsOwnStandsInForBoots() {
        Executor own = Executors.newSingleThreadExecutor();
        this.runner.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class))
            .withBean("ownExecutor", Executor.class, () -> own)
            .run((context) -> assertThat(context.getBean(AnthropicSdkThrottling.class)).extracting("asyncExecutor")
                .isSameAs(own));
    }

    @Test
    void withoutAnyExecutorEachHookHasItsOwnDaemonThreadsNotTheCommonPool() {
        this.runner.run((context) -> {
            for (Object hook : List.of(context.getBean(AnthropicSdkThrottling.class),
                    context.getBean(OpenAiSdkThrottling.class))) {
                Executor executor = (Executor) ReflectionTestUtils.getField(hook, "asyncExecutor");
                assertThat(executor).isNotSameAs(ForkJoinPool.commonPool());
                CompletableFuture<Thread> thread = CompletableFuture.supplyAsync(Thread::currentThread, executor);
                assertThat(thread.get(10, TimeUnit.SECONDS)).satisfies((ran) -> {
                    assertThat(ran.getName()).startsWith("llm-throttle-sdk-");
                    assertThat(ran.isDaemon()).isTrue();
                });
            }
        });
    }

}
