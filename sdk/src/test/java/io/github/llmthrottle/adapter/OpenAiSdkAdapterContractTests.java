package io.github.llmthrottle.adapter;

import java.util.stream.Collectors;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientImpl;
import com.openai.client.okhttp.OkHttpClient;
import com.openai.core.ClientOptions;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import io.github.llmthrottle.sdk.OpenAiSdkThrottling;
import io.github.llmthrottle.sdk.autoconfigure.LlmThrottleSdkAutoConfiguration;

import org.springframework.context.ApplicationContext;

/**
 * The contract of every adapter, met by the {@code openai-java} SDK hook. The SDK's own
 * retries are left at their default: llm-throttle's answers keep them from adding
 * attempts.
 */
class OpenAiSdkAdapterContractTests extends AbstractAdapterContractTests {

    @Override
    protected Class<?>[] autoConfigurations() {
        return new Class<?>[] { LlmThrottleSdkAutoConfiguration.class };
    }

    @Override
    protected Dialect dialect() {
        return Dialect.OPENAI;
    }

    @Override
    protected String send(ApplicationContext context, String baseUrl, boolean stream) {
        OpenAIClient client = new OpenAIClientImpl(ClientOptions.builder()
            .baseUrl(baseUrl)
            .apiKey("test")
            .httpClient(context.getBean(OpenAiSdkThrottling.class)
                .httpClient(dialect().client(), OkHttpClient.builder().build()))
            .build());
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
            .model(dialect().model())
            .maxCompletionTokens(64)
            .addUserMessage("Hello")
            .build();
        if (!stream) {
            return client.chat().completions().create(params).choices().get(0).message().content().orElseThrow();
        }
        ChatCompletionCreateParams streamed = params.toBuilder()
            .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build())
            .build();
        try (StreamResponse<ChatCompletionChunk> chunks = client.chat().completions().createStreaming(streamed)) {
            return chunks.stream()
                .flatMap((chunk) -> chunk.choices().stream())
                .flatMap((choice) -> choice.delta().content().stream())
                .collect(Collectors.joining());
        }
    }

}
