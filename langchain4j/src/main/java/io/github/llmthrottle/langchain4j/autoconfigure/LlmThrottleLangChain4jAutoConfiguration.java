package io.github.llmthrottle.langchain4j.autoconfigure;

import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

import dev.langchain4j.http.client.HttpClientBuilder;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.langchain4j.LangChain4jThrottling;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the hook that throttles a LangChain4j model, when LangChain4j's
 * pluggable HTTP client is on the classpath: {@link LangChain4jThrottling}, whose HTTP
 * client builder the user gives a LangChain4j model's builder
 * ({@code OpenAiChatModel.builder().httpClientBuilder(throttling.httpClientBuilder("openai", JdkHttpClient.builder())).maxRetries(0)}).
 * Its streamed requests wait for admission on the application's task executor (Boot's
 * {@code applicationTaskExecutor}, or the one {@link Executor} bean the application
 * defines instead), never on {@link ForkJoinPool#commonPool()}; an application with
 * neither gets the hook's own pool of daemon threads.
 */
@AutoConfiguration(after = { LlmThrottleAutoConfiguration.class, TaskExecutionAutoConfiguration.class })
@ConditionalOnClass(HttpClientBuilder.class)
@ConditionalOnBean(LlmThrottleRegistry.class)
public final class LlmThrottleLangChain4jAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LangChain4jThrottling llmThrottleLangChain4jThrottling(LlmThrottleRegistry registry,
            @Qualifier(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME) ObjectProvider<Executor> taskExecutor,
            ObjectProvider<Executor> executors) {
        Executor executor = taskExecutor.getIfAvailable(executors::getIfUnique);
        return (executor != null) ? new LangChain4jThrottling(registry, executor) : new LangChain4jThrottling(registry);
    }

}
