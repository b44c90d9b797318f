package io.github.llmthrottle.adapter;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import io.github.llmthrottle.langchain4j.LangChain4jThrottling;
import io.github.llmthrottle.langchain4j.autoconfigure.LlmThrottleLangChain4jAutoConfiguration;

import org.springframework.context.ApplicationContext;

/**
 * The contract of every adapter, met by the LangChain4j hook under LangChain4j's own
 * OpenAI chat models, blocking and streamed, over its JDK HTTP client. A streamed call's
 * failure reaches its handler's {@code onError}, and is thrown from there here.
 */
class LangChain4jAdapterContractTests extends AbstractAdapterContractTests {

    @Override
    protected Class<?>[] autoConfigurations() {
        return new Class<?>[] { LlmThrottleLangChain4jAutoConfiguration.class };
    }

    @Override
    protected Dialect dialect() {
        return Dialect.OPENAI;
    }

    @Override
    protected String send(ApplicationContext context, String baseUrl, boolean stream) throws Exception {
        HttpClientBuilder hook = context.getBean(LangChain4jThrottling.class)
            .httpClientBuilder(dialect().client(), JdkHttpClient.builder());
        if (!stream) {
            return OpenAiChatModel.builder()
                .httpClientBuilder(hook)
                .baseUrl(baseUrl)
                .apiKey("test")
                .modelName(dialect().model())
                .maxTokens(64)
                // the hook's documented line: LangChain4j's own retries would retry
                // what llm-throttle handed back
                .maxRetries(0)
                .build()
                .chat("Hello");
        }
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        OpenAiStreamingChatModel.builder()
            .httpClientBuilder(hook)
            .baseUrl(baseUrl)
            .apiKey("test")
            .modelName(dialect().model())
            .maxTokens(64)
            .build()
            .chat("Hello", new StreamingChatResponseHandler() {

                @Override
                public void onPartialResponse(String partialResponse) {
                }

                @Override
                public void onCompleteResponse(ChatResponse completeResponse) {
                    done.complete(completeResponse);
                }

                @Override
                public void onError(Throwable error) {
                    done.completeExceptionally(error);
                }

            });
        try {
            return done.get(30, TimeUnit.SECONDS).aiMessage().text();
        }
        catch (ExecutionException ex) {
            throw (ex.getCause() instanceof Exception cause) ? cause : ex;
        }
    }

}
