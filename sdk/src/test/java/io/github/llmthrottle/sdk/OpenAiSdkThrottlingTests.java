package io.github.llmthrottle.sdk;

import java.util.concurrent.TimeUnit;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientImpl;
import com.openai.client.okhttp.OkHttpClient;
import com.openai.core.ClientOptions;
import com.openai.core.http.HttpClient;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.sdk.autoconfigure.LlmThrottleSdkAutoConfiguration;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.LlmSimulatorExtension;
import io.github.llmthrottle.test.ModelLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The official OpenAI SDK ({@code openai-java} 4.49, as Spring AI 2.0.1 brings it) used
 * without Spring AI, throttled by the one-line hook
 * {@code ClientOptions.builder().httpClient(throttling.httpClient("openai", OkHttpClient.builder().build()))},
 * against the simulated provider.
 */
class OpenAiSdkThrottlingTests {

    private static final String GPT = "gpt-4o-mini";

    @RegisterExtension
    static final LlmSimulatorExtension simulator = LlmSimulatorExtension
        .of(LlmSimulator.builder().model(GPT, ModelLimits.of(1000, 1_000_000, 100_000)).outputTokens(40).noLatency());

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                LlmThrottleAutoConfiguration.class, LlmThrottleSdkAutoConfiguration.class))
        .withPropertyValues("llm.throttle.retry.delay=10ms", "llm.throttle.retry.max-delay=50ms",
                "llm.throttle.clients.openai.provider=openai",
                "llm.throttle.clients.openai.base-url=" + simulator.simulator().openAiBaseUrl());

    private static final ChatCompletionCreateParams PARAMS = ChatCompletionCreateParams.builder()
        .model(GPT)
        .maxCompletionTokens(200)
        .addUserMessage("Tell me about token buckets.")
        .build();

    @Test
    void callIsAdmittedOnceAndSettledFromItsUsage() {
        this.runner.run((context) -> {
            OpenAIClient client = client(context, 0);
            ChatCompletion completion = client.chat().completions().create(PARAMS);
            assertThat(completion.choices()).isNotEmpty();
            ModelTotals.Snapshot totals = model(context).getTotals().snapshot();
            assertThat(totals.calls()).isEqualTo(1);
            assertThat(totals.attempts()).isEqualTo(1);
            assertThat(totals.succeeded()).isEqualTo(1);
            assertThat(totals.outputTokens()).isEqualTo(40);
            assertThat(totals.inputTokens()).isEqualTo(completion.usage().orElseThrow().promptTokens());
        });
    }

    /**
     * The SDK's own retries are left at their default (2) here: the
     * {@code x-should-retry: false} llm-throttle hands back keeps them from multiplying.
     */
    @Test
    void a429WithRetryAfterIsAttemptedMaxRetriesPlusOneTimesInAll() {
        simulator.simulator()
            .script(GPT, Fault.status(429).retryAfter("0.01"), Fault.status(429).retryAfter("0.01"),
                    Fault.status(429).retryAfter("0.01"), Fault.status(429).retryAfter("0.01"));
        this.runner.withPropertyValues("llm.throttle.retry.max-retries=2").run((context) -> {
            OpenAIClient client = client(context, 2);
            assertThatThrownBy(() -> client.chat().completions().create(PARAMS))
                .isInstanceOf(RetriesExhaustedException.class);
            assertThat(simulator.simulator().stats(GPT).attempts()).isEqualTo(3);
            ModelTotals.Snapshot totals = model(context).getTotals().snapshot();
            assertThat(totals.attempts()).isEqualTo(3);
            assertThat(totals.rateLimited()).isEqualTo(3);
        });
    }

    @Test
    void asyncCallIsAdmittedAndSettledOffTheCallersThread() {
        this.runner.run((context) -> {
            OpenAIClient client = client(context, 0);
            ChatCompletion completion = client.async().chat().completions().create(PARAMS).get(30, TimeUnit.SECONDS);
            assertThat(completion.choices()).isNotEmpty();
            ModelTotals.Snapshot totals = model(context).getTotals().snapshot();
            assertThat(totals.calls()).isEqualTo(1);
            assertThat(totals.outputTokens()).isEqualTo(40);
        });
    }

    @Test
    void httpClientOfAClientThatIsNotConfiguredIsRefusedWithTheConfiguredNames() {
        this.runner.run((context) -> assertThatThrownBy(
                () -> context.getBean(OpenAiSdkThrottling.class).httpClient("gpt", OkHttpClient.builder().build()))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("llm.throttle.clients.gpt")
            .hasMessageContaining("[openai]"));
    }

    @Test
    void noHookWithoutTheOpenAiSdk() {
        this.runner.withClassLoader(new FilteredClassLoader(HttpClient.class))
            .run((context) -> assertThat(context).doesNotHaveBean(OpenAiSdkThrottling.class)
                .hasSingleBean(AnthropicSdkThrottling.class));
    }

    private static OpenAIClient client(ApplicationContext context, int maxRetries) {
        OpenAiSdkThrottling throttling = context.getBean(OpenAiSdkThrottling.class);
        return new OpenAIClientImpl(ClientOptions.builder()
            .baseUrl(simulator.simulator().openAiBaseUrl())
            .apiKey("test")
            .httpClient(throttling.httpClient("openai", OkHttpClient.builder().build()))
            .maxRetries(maxRetries)
            .build());
    }

    private static ThrottledModel model(ApplicationContext context) {
        return context.getBean(LlmThrottleRegistry.class).getClient("openai").model(GPT);
    }

}
