package io.github.llmthrottle.springai.autoconfigure;

import java.util.concurrent.Executor;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.okhttp.DispatcherExecutor;
import io.github.llmthrottle.okhttp.OkHttpThrottlingInterceptor;
import io.github.llmthrottle.springai.CallTimeoutWarning;
import io.github.llmthrottle.springai.StackedRetriesWarning;
import io.github.llmthrottle.springai.ThrottleParametersAdvisor;
import okhttp3.Interceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.anthropic.http.okhttp.AnthropicHttpClientBuilderCustomizer;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientBuilderCustomizer;
import org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of llm-throttle for Spring AI 2.0's Anthropic and OpenAI models,
 * which call the providers through the official SDKs over OkHttp: the throttling OkHttp
 * interceptor on each model's HTTP clients (sync and async), through Spring AI's own
 * builder customizers, so that every request to a configured client's base URL is
 * throttled like a call through its {@code RestClient}; and the {@code ChatClient}
 * advisor reading the {@code llm.throttle.priority} and {@code llm.throttle.tenant}
 * parameters. The same customizers run the clients' enqueued calls ({@code stream()}) on
 * the application's task executor (Boot's {@code applicationTaskExecutor}, or the one
 * {@link Executor} bean the application defines instead) through a
 * {@link DispatcherExecutor}, so that they wait for admission there rather than on
 * OkHttp's dispatcher threads; an application with neither keeps OkHttp's pool.
 */
@AutoConfiguration(after = { LlmThrottleAutoConfiguration.class, TaskExecutionAutoConfiguration.class },
        beforeName = { "org.springframework.ai.model.anthropic.autoconfigure.AnthropicChatAutoConfiguration",
                "org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration",
                "org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration" })
@ConditionalOnClass(Interceptor.class)
@ConditionalOnBean(LlmThrottleRegistry.class)
public final class LlmThrottleSpringAiAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    OkHttpThrottlingInterceptor llmThrottleOkHttpInterceptor(LlmThrottleRegistry registry) {
        return new OkHttpThrottlingInterceptor(registry);
    }

    /**
     * The executor of the models' OkHttp dispatchers over the application's task
     * executor, or {@code null} (OkHttp's own pool) when the application has none.
     */
    private static @Nullable DispatcherExecutor dispatcherExecutor(ObjectProvider<Executor> taskExecutor,
            ObjectProvider<Executor> executors, LlmThrottleRegistry registry) {
        Executor executor = taskExecutor.getIfAvailable(executors::getIfUnique);
        return (executor != null) ? new DispatcherExecutor(executor, registry) : null;
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(AnthropicHttpClientBuilderCustomizer.class)
    static final class AnthropicConfiguration {

        /**
         * Runs twice per model, on a new builder each time (sync and async client); the
         * interceptor lets a request it already throttles pass, so adding it again is
         * harmless.
         */
        @Bean
        AnthropicHttpClientBuilderCustomizer llmThrottleAnthropicHttpClientBuilderCustomizer(
                OkHttpThrottlingInterceptor interceptor, LlmThrottleRegistry registry,
                @Qualifier(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME) ObjectProvider<Executor> taskExecutor,
                ObjectProvider<Executor> executors) {
            DispatcherExecutor dispatcher = dispatcherExecutor(taskExecutor, executors, registry);
            return (builder) -> {
                builder.interceptor(interceptor);
                if (dispatcher != null) {
                    builder.dispatcherExecutorService(dispatcher);
                }
            };
        }

        @Bean
        StackedRetriesWarning llmThrottleAnthropicRetriesWarning(Environment environment) {
            return new StackedRetriesWarning(environment, "spring.ai.anthropic.max-retries");
        }

        @Bean
        CallTimeoutWarning llmThrottleAnthropicTimeoutWarning(Environment environment,
                LlmThrottleProperties properties) {
            return new CallTimeoutWarning(environment, "spring.ai.anthropic.timeout",
                    properties.getQueue().getMaxWait());
        }

    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(OpenAiHttpClientBuilderCustomizer.class)
    static final class OpenAiConfiguration {

        @Bean
        OpenAiHttpClientBuilderCustomizer llmThrottleOpenAiHttpClientBuilderCustomizer(
                OkHttpThrottlingInterceptor interceptor, LlmThrottleRegistry registry,
                @Qualifier(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME) ObjectProvider<Executor> taskExecutor,
                ObjectProvider<Executor> executors) {
            DispatcherExecutor dispatcher = dispatcherExecutor(taskExecutor, executors, registry);
            return (builder) -> {
                builder.interceptor(interceptor);
                if (dispatcher != null) {
                    builder.dispatcherExecutorService(dispatcher);
                }
            };
        }

        @Bean
        StackedRetriesWarning llmThrottleOpenAiRetriesWarning(Environment environment) {
            return new StackedRetriesWarning(environment, "spring.ai.openai.max-retries");
        }

        @Bean
        CallTimeoutWarning llmThrottleOpenAiTimeoutWarning(Environment environment, LlmThrottleProperties properties) {
            return new CallTimeoutWarning(environment, "spring.ai.openai.timeout", properties.getQueue().getMaxWait());
        }

    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ChatClient.class)
    static final class ChatClientConfiguration {

        @Bean
        @ConditionalOnMissingBean
        ThrottleParametersAdvisor llmThrottleParametersAdvisor() {
            return new ThrottleParametersAdvisor();
        }

        @Bean
        ChatClientBuilderCustomizer llmThrottleChatClientBuilderCustomizer(ThrottleParametersAdvisor advisor) {
            return (builder) -> builder.defaultAdvisors(advisor);
        }

    }

}
