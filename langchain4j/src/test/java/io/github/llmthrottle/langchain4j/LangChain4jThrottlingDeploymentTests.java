package io.github.llmthrottle.langchain4j;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import io.github.llmthrottle.client.TwoDeployments;
import io.github.llmthrottle.langchain4j.autoconfigure.LlmThrottleLangChain4jAutoConfiguration;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A model served by two deployments, each a simulated provider of its own that accepts
 * only its own API key, called through LangChain4j's OpenAI models and the hook:
 * {@code east} (the client's base URL, 2 requests per minute) and {@code west} (another
 * base URL). The LangChain4j model itself holds a key neither accepts, so a call succeeds
 * only when the deployment's key replaced it.
 */
class LangChain4jThrottlingDeploymentTests {

    private static final String GPT = "gpt-4o-mini";

    private TwoDeployments deployments;

    private LlmSimulator east;

    private LlmSimulator west;

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.deployments = TwoDeployments.openAi(GPT);
        this.east = this.deployments.east;
        this.west = this.deployments.west;
        this.runner = this.deployments.runner()
            .withConfiguration(AutoConfigurations.of(LlmThrottleLangChain4jAutoConfiguration.class));
    }

    @AfterEach
    void stop() {
        this.deployments.close();
    }

    @Test
    void callsGoToTheDeploymentThatAdmitsThemSoonestEachWithItsOwnKey() {
        this.runner.run((context) -> {
            ChatModel model = OpenAiChatModel.builder()
                .httpClientBuilder(hook(context))
                .baseUrl(this.east.openAiBaseUrl())
                .apiKey("caller-key")
                .modelName(GPT)
                .maxRetries(0)
                .build();
            // both admit at once: configuration order; then east's two requests a minute
            // are spent, and west admits at once
            for (int i = 0; i < 4; i++) {
                assertThat(model.chat("Tell me about token buckets.")).isNotBlank();
            }
            assertThat(this.east.stats(GPT).successes()).isEqualTo(2);
            assertThat(this.west.stats(GPT).successes()).isEqualTo(2);
            assertThat(this.east.stats().otherErrors()).isZero();
            assertThat(this.west.stats().otherErrors()).isZero();
        });
    }

    @Test
    void aStreamRefusedByAnOverloadedDeploymentFailsOverToTheOther() {
        this.east.script(GPT, Fault.overloaded());
        this.runner.run((context) -> {
            CompletableFuture<ChatResponse> done = new CompletableFuture<>();
            OpenAiStreamingChatModel.builder()
                .httpClientBuilder(hook(context))
                .baseUrl(this.east.openAiBaseUrl())
                .apiKey("caller-key")
                .modelName(GPT)
                .build()
                .chat("Tell me about token buckets.", new StreamingChatResponseHandler() {

                    @Override
                    public void onCompleteResponse(ChatResponse completeResponse) {
                        done.complete(completeResponse);
                    }

                    @Override
                    public void onError(Throwable error) {
                        done.completeExceptionally(error);
                    }

                });
            assertThat(done.get(30, TimeUnit.SECONDS).aiMessage().text()).isNotBlank();
            assertThat(this.east.stats(GPT).attempts()).isEqualTo(1);
            assertThat(this.west.stats(GPT).successes()).isEqualTo(1);
            assertThat(this.west.stats().otherErrors()).isZero();
        });
    }

    private static dev.langchain4j.http.client.HttpClientBuilder hook(ApplicationContext context) {
        return context.getBean(LangChain4jThrottling.class).httpClientBuilder("openai", JdkHttpClient.builder());
    }

}
