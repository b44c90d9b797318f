package io.github.llmthrottle.sdk.autoconfigure;

import com.anthropic.core.http.Interceptor;
import com.openai.core.http.HttpClient;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.sdk.AnthropicSdkThrottling;
import io.github.llmthrottle.sdk.OpenAiSdkThrottling;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the hooks that throttle an official SDK client built without
 * Spring AI, each when its SDK is on the classpath: {@link AnthropicSdkThrottling}, whose
 * interceptor the user adds on the client builder in one line
 * ({@code AnthropicOkHttpClient.builder().addInterceptor(throttling.interceptor("anthropic")).maxRetries(0)}),
 * and {@link OpenAiSdkThrottling}, whose HTTP client the user gives the client options
 * ({@code ClientOptions.builder().httpClient(throttling.httpClient("openai", OkHttpClient.builder().build()))}).
 */
@AutoConfiguration(after = LlmThrottleAutoConfiguration.class)
@ConditionalOnBean(LlmThrottleRegistry.class)
public final class LlmThrottleSdkAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Interceptor.class)
    static class AnthropicSdkConfiguration {

        @Bean
        @ConditionalOnMissingBean
        AnthropicSdkThrottling llmThrottleAnthropicSdkThrottling(LlmThrottleRegistry registry) {
            return new AnthropicSdkThrottling(registry);
        }

    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HttpClient.class)
    static class OpenAiSdkConfiguration {

        @Bean
        @ConditionalOnMissingBean
        OpenAiSdkThrottling llmThrottleOpenAiSdkThrottling(LlmThrottleRegistry registry) {
            return new OpenAiSdkThrottling(registry);
        }

    }

}
