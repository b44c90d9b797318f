package io.github.llmthrottle.autoconfigure;

import com.anthropic.core.http.Interceptor;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.sdk.AnthropicSdkThrottling;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the hook that throttles an official Anthropic SDK client built
 * without Spring AI: the {@link AnthropicSdkThrottling} bean, whose interceptor the user
 * adds on the client builder in one line
 * ({@code AnthropicOkHttpClient.builder().addInterceptor(throttling.interceptor("anthropic")).maxRetries(0)}).
 */
@AutoConfiguration(after = LlmThrottleAutoConfiguration.class)
@ConditionalOnClass(Interceptor.class)
@ConditionalOnBean(LlmThrottleRegistry.class)
public final class LlmThrottleSdkAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    AnthropicSdkThrottling llmThrottleAnthropicSdkThrottling(LlmThrottleRegistry registry) {
        return new AnthropicSdkThrottling(registry);
    }

}
