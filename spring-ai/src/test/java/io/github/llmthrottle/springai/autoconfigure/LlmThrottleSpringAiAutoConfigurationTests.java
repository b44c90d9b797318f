package io.github.llmthrottle.springai.autoconfigure;

import java.net.URI;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.okhttp.OkHttpThrottlingInterceptor;
import io.github.llmthrottle.springai.CallTimeoutWarning;
import io.github.llmthrottle.springai.StackedRetriesWarning;
import io.github.llmthrottle.springai.ThrottleParametersAdvisor;
import okhttp3.Interceptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.ai.anthropic.http.okhttp.AnthropicHttpClientBuilderCustomizer;
import org.springframework.ai.chat.client.ChatClientBuilderCustomizer;
import org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spring AI auto-configuration: what it registers, when it backs off, the startup
 * warning about stacked retries, and which configured client the URLs Spring AI's models
 * send to resolve to.
 */
@ExtendWith(OutputCaptureExtension.class)
class LlmThrottleSpringAiAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                LlmThrottleAutoConfiguration.class, LlmThrottleSpringAiAutoConfiguration.class))
        .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.base-url=https://api.anthropic.com");

    @Test
    void registersTheInterceptorOnBothProvidersAndTheAdvisorOnChatClients() {
        this.runner.run((context) -> {
            assertThat(context).hasSingleBean(OkHttpThrottlingInterceptor.class)
                .hasSingleBean(AnthropicHttpClientBuilderCustomizer.class)
                .hasSingleBean(OpenAiHttpClientBuilderCustomizer.class)
                .hasSingleBean(ThrottleParametersAdvisor.class)
                .hasSingleBean(ChatClientBuilderCustomizer.class);
        });
    }

    @Test
    void backsOffWhenLlmThrottleIsDisabled() {
        this.runner.withPropertyValues("llm.throttle.enabled=false").run((context) -> {
            assertThat(context).doesNotHaveBean(LlmThrottleRegistry.class)
                .doesNotHaveBean(OkHttpThrottlingInterceptor.class)
                .doesNotHaveBean(AnthropicHttpClientBuilderCustomizer.class)
                .doesNotHaveBean(ChatClientBuilderCustomizer.class);
        });
    }

    @Test
    void backsOffWithoutOkHttp() {
        this.runner.withClassLoader(new FilteredClassLoader(Interceptor.class)).run((context) -> {
            assertThat(context).hasSingleBean(LlmThrottleRegistry.class)
                .doesNotHaveBean(OkHttpThrottlingInterceptor.class);
        });
    }

    @Test
    void customizesOnlyTheProvidersOnTheClasspath() {
        this.runner.withClassLoader(new FilteredClassLoader(AnthropicHttpClientBuilderCustomizer.class))
            .run((context) -> {
                assertThat(context).doesNotHaveBean(AnthropicHttpClientBuilderCustomizer.class)
                    .hasSingleBean(OpenAiHttpClientBuilderCustomizer.class);
            });
        this.runner.withClassLoader(new FilteredClassLoader(OpenAiHttpClientBuilderCustomizer.class)).run((context) -> {
            assertThat(context).hasSingleBean(AnthropicHttpClientBuilderCustomizer.class)
                .doesNotHaveBean(OpenAiHttpClientBuilderCustomizer.class);
        });
    }

    @Test
    void backsOffFromAnInterceptorOfTheApplication() {
        this.runner.withUserConfiguration(MyInterceptorConfiguration.class)
            .run((context) -> assertThat(context).hasSingleBean(OkHttpThrottlingInterceptor.class)
                .hasBean("myInterceptor"));
    }

    @Test
    void warnsOnceWhenSdkRetriesAreConfiguredToo(CapturedOutput output) {
        this.runner.withPropertyValues("spring.ai.anthropic.max-retries=2", "spring.ai.openai.max-retries=0")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(output).containsOnlyOnce("spring.ai.anthropic.max-retries=2 is not applied")
                    .doesNotContain("spring.ai.openai.max-retries");
                assertThat(context.getBeansOfType(StackedRetriesWarning.class)).hasSize(2);
            });
    }

    @Test
    void warnsOnceWhenAModelsTimeoutLeavesLessThanMaxWaitForWaiting(CapturedOutput output) {
        this.runner
            .withPropertyValues("spring.ai.anthropic.timeout=20s", "spring.ai.openai.timeout=60s",
                    "llm.throttle.queue.max-wait=30s")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(output).containsOnlyOnce("spring.ai.anthropic.timeout=PT20S is OkHttp's call timeout")
                    .contains("wait at most PT15S")
                    .doesNotContain("spring.ai.openai.timeout=");
                assertThat(context.getBeansOfType(CallTimeoutWarning.class)).hasSize(2);
            });
    }

    @Test
    void doesNotWarnWhenSdkRetriesAreLeftUnset(CapturedOutput output) {
        this.runner.run((context) -> assertThat(output).doesNotContain("max-retries"));
    }

    /**
     * {@code spring.ai.anthropic.base-url} is given without {@code /v1} (the SDK adds
     * {@code v1/messages}), {@code spring.ai.openai.base-url} with it; a configured
     * client's base URL matches either way.
     */
    @ParameterizedTest
    @CsvSource({ "https://api.anthropic.com, https://api.anthropic.com/v1/messages",
            "https://api.anthropic.com/v1, https://api.anthropic.com/v1/messages",
            "https://api.openai.com, https://api.openai.com/v1/chat/completions",
            "https://api.openai.com/v1, https://api.openai.com/v1/chat/completions" })
    void requestOfSpringAiResolvesToTheClientWithOrWithoutV1InItsBaseUrl(String baseUrl, String requestUrl) {
        this.runner.withPropertyValues("llm.throttle.clients.anthropic.base-url=" + baseUrl).run((context) -> {
            LlmThrottleRegistry registry = context.getBean(LlmThrottleRegistry.class);
            assertThat(registry.resolve(URI.create(requestUrl))).isSameAs(registry.getClient("anthropic"));
            assertThat(registry.resolve(URI.create("https://example.com/v1/messages"))).isNull();
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class MyInterceptorConfiguration {

        @Bean
        OkHttpThrottlingInterceptor myInterceptor(LlmThrottleRegistry registry) {
            return new OkHttpThrottlingInterceptor(registry);
        }

    }

}
