package io.github.llmthrottle.sdk.autoconfigure;

import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

import com.anthropic.core.http.Interceptor;
import com.openai.core.http.HttpClient;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.sdk.AnthropicSdkThrottling;
import io.github.llmthrottle.sdk.OpenAiSdkThrottling;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the hooks that throttle an official SDK client built without
 * Spring AI, each when its SDK is on the classpath: {@link AnthropicSdkThrottling}, whose
 * interceptor the user adds on the client builder in one line
 * ({@code AnthropicOkHttpClient.builder().addInterceptor(throttling.interceptor("anthropic")).maxRetries(0)}),
 * and {@link OpenAiSdkThrottling}, whose HTTP client the user gives the client options
 * ({@code ClientOptions.builder().httpClient(throttling.httpClient("openai", OkHttpClient.builder().build()))}).
 * Their asynchronous requests wait for admission on the application's task executor
 * (Boot's {@code applicationTaskExecutor}, or the one {@link Executor} bean the
 * application defines instead), never on {@link ForkJoinPool#commonPool()}: an
 * application with neither leaves each hook its own pool of daemon threads.
 */
@AutoConfiguration(after = { LlmThrottleAutoConfiguration.class, TaskExecutionAutoConfiguration.class })
@ConditionalOnBean(LlmThrottleRegistry.class)
public final class LlmThrottleSdkAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Interceptor.class)
    static class AnthropicSdkConfiguration {

        @Bean
        @ConditionalOnMissingBean
        AnthropicSdkThrottling llmThrottleAnthropicSdkThrottling(LlmThrottleRegistry registry,
                @Qualifier(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME) ObjectProvider<Executor> taskExecutor,
                ObjectProvider<Executor> executors) {
            Executor executor = taskExecutor.getIfAvailable(executors::getIfUnique);
            return (executor != null) ? new AnthropicSdkThrottling(registry, executor)
                    : new AnthropicSdkThrottling(registry);
        }

    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HttpClient.class)
    static class OpenAiSdkConfiguration {

        @Bean
        @ConditionalOnMissingBean
        OpenAiSdkThrottling llmThrottleOpenAiSdkThrottling(LlmThrottleRegistry registry,
                @Qualifier(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME) ObjectProvider<Executor> taskExecutor,
                ObjectProvider<Executor> executors) {
            Executor executor = taskExecutor.getIfAvailable(executors::getIfUnique);
            return (executor != null) ? new OpenAiSdkThrottling(registry, executor) : new OpenAiSdkThrottling(registry);
        }

    }

}
