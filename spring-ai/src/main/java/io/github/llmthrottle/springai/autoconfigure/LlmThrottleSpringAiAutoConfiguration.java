package io.github.llmthrottle.springai.autoconfigure;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.okhttp.OkHttpThrottlingInterceptor;
import io.github.llmthrottle.springai.CallTimeoutWarning;
import io.github.llmthrottle.springai.StackedRetriesWarning;
import io.github.llmthrottle.springai.ThrottleParametersAdvisor;
import okhttp3.Interceptor;

import org.springframework.ai.anthropic.http.okhttp.AnthropicHttpClientBuilderCustomizer;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientBuilderCustomizer;
import org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
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
 * parameters.
 */
@AutoConfiguration(after = LlmThrottleAutoConfiguration.class,
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
                OkHttpThrottlingInterceptor interceptor) {
            return (builder) -> builder.interceptor(interceptor);
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
                OkHttpThrottlingInterceptor interceptor) {
            return (builder) -> builder.interceptor(interceptor);
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
