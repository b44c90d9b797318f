package io.github.llmthrottle.adapter;

import java.util.stream.Collectors;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import io.github.llmthrottle.sdk.AnthropicSdkThrottling;
import io.github.llmthrottle.sdk.autoconfigure.LlmThrottleSdkAutoConfiguration;

import org.springframework.context.ApplicationContext;

/**
 * The contract of every adapter, met by the {@code anthropic-java} SDK hook. The SDK's
 * own retries are left at their default: llm-throttle's answers keep them from adding
 * attempts.
 */
class AnthropicSdkAdapterContractTests extends AbstractAdapterContractTests {

    @Override
    protected Class<?>[] autoConfigurations() {
        return new Class<?>[] { LlmThrottleSdkAutoConfiguration.class };
    }

    @Override
    protected Dialect dialect() {
        return Dialect.ANTHROPIC;
    }

    @Override
    protected String send(ApplicationContext context, String baseUrl, boolean stream) {
        AnthropicClient client = AnthropicOkHttpClient.builder()
            .baseUrl(baseUrl)
            .apiKey("test")
            .addInterceptor(context.getBean(AnthropicSdkThrottling.class).interceptor(dialect().client()))
            .build();
        MessageCreateParams params = MessageCreateParams.builder()
            .model(dialect().model())
            .maxTokens(64)
            .addUserMessage("Hello")
            .build();
        if (!stream) {
            return client.messages()
                .create(params)
                .content()
                .stream()
                .flatMap((block) -> block.text().stream())
                .map((text) -> text.text())
                .collect(Collectors.joining());
        }
        try (StreamResponse<RawMessageStreamEvent> events = client.messages().createStreaming(params)) {
            return events.stream()
                .flatMap((event) -> event.contentBlockDelta().stream())
                .flatMap((delta) -> delta.delta().text().stream())
                .map((text) -> text.text())
                .collect(Collectors.joining());
        }
    }

}
