package io.github.llmthrottle.langchain4j.autoconfigure;

import dev.langchain4j.http.client.HttpClientBuilder;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.langchain4j.LangChain4jThrottling;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the hook that throttles a LangChain4j model, when LangChain4j's
 * pluggable HTTP client is on the classpath: {@link LangChain4jThrottling}, whose HTTP
 * client builder the user gives a LangChain4j model's builder
 * ({@code OpenAiChatModel.builder().httpClientBuilder(throttling.httpClientBuilder("openai", JdkHttpClient.builder())).maxRetries(0)}).
 */
@AutoConfiguration(after = LlmThrottleAutoConfiguration.class)
@ConditionalOnClass(HttpClientBuilder.class)
@ConditionalOnBean(LlmThrottleRegistry.class)
public final class LlmThrottleLangChain4jAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LangChain4jThrottling llmThrottleLangChain4jThrottling(LlmThrottleRegistry registry) {
        return new LangChain4jThrottling(registry);
    }

}
