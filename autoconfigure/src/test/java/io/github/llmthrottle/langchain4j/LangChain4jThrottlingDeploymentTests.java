package io.github.llmthrottle.langchain4j;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.autoconfigure.LlmThrottleSdkAutoConfiguration;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.ModelLimits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
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

    private LlmSimulator east;

    private LlmSimulator west;

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.east = LlmSimulator.builder().noLatency().outputTokens(40).apiKeys("east-key").start();
        this.west = LlmSimulator.builder()
            .noLatency()
            .outputTokens(40)
            .apiKeys("west-key")
            .model(GPT, ModelLimits.of(1000, 1_000_000, 100_000))
            .start();
        String deployments = "llm.throttle.clients.openai.models." + GPT + ".deployments.";
        this.runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                            LlmThrottleAutoConfiguration.class, LlmThrottleSdkAutoConfiguration.class))
            .withPropertyValues("llm.throttle.clients.openai.provider=openai",
                    "llm.throttle.clients.openai.base-url=" + this.east.openAiBaseUrl(),
                    "llm.throttle.clients.openai.models." + GPT + ".requests-per-minute=100",
                    deployments + "east.api-key=east-key", deployments + "east.requests-per-minute=2",
                    deployments + "west.base-url=" + this.west.openAiBaseUrl(), deployments + "west.api-key=west-key",
                    "llm.throttle.queue.max-wait=1s", "llm.throttle.retry.max-retries=1",
                    "llm.throttle.retry.delay=1ms", "llm.throttle.retry.max-delay=5ms",
                    "llm.throttle.retry.jitter=none");
    }

    @AfterEach
    void stop() {
        this.east.close();
        this.west.close();
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
