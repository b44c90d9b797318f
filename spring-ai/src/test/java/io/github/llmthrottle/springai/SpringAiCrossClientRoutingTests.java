package io.github.llmthrottle.springai;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.Throttled;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.ThrottleObserver;
import io.github.llmthrottle.springai.autoconfigure.LlmThrottleSpringAiAutoConfiguration;
import io.github.llmthrottle.test.LlmSimulator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.anthropic.AnthropicChatOptions;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.model.anthropic.autoconfigure.AnthropicChatAutoConfiguration;
import org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The documented Spring AI idiom for a fallback to another provider: a {@code @Throttled}
 * method picks the {@code ChatClient} of the client it was routed to by
 * {@code ThrottleContext.current().getClient()}. An outage of the Anthropic model routes
 * the invocation to the OpenAI-compatible client's model, whose call runs with the
 * invocation's priority and tenant.
 */
class SpringAiCrossClientRoutingTests {

    private static final String OPUS = "claude-opus-4-7";

    private static final String GPT = "gpt-4o-mini";

    private LlmSimulator anthropic;

    private LlmSimulator openai;

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.anthropic = LlmSimulator.builder().noLatency().start();
        this.openai = LlmSimulator.builder().noLatency().start();
        this.runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    RestClientAutoConfiguration.class, LlmThrottleAutoConfiguration.class,
                    LlmThrottleSpringAiAutoConfiguration.class, ToolCallingAutoConfiguration.class,
                    AnthropicChatAutoConfiguration.class, OpenAiChatAutoConfiguration.class))
            .withUserConfiguration(AnswersConfiguration.class)
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + this.anthropic.baseUrl(),
                    "llm.throttle.clients.anthropic.models." + OPUS + ".fallback=openai:" + GPT,
                    "llm.throttle.clients.openai.provider=openai",
                    "llm.throttle.clients.openai.base-url=" + this.openai.openAiBaseUrl(),
                    "llm.throttle.clients.openai.models." + GPT + ".requests-per-minute=1000",
                    "llm.throttle.retry.max-retries=2", "llm.throttle.retry.delay=1ms",
                    "llm.throttle.retry.max-delay=5ms", "spring.ai.anthropic.api-key=test",
                    "spring.ai.anthropic.base-url=" + this.anthropic.baseUrl(),
                    "spring.ai.anthropic.chat.max-tokens=200", "spring.ai.openai.api-key=test",
                    "spring.ai.openai.base-url=" + this.openai.openAiBaseUrl(), "spring.ai.openai.chat.max-tokens=200");
    }

    @AfterEach
    void stop() {
        this.anthropic.close();
        this.openai.close();
    }

    @Test
    void anAnthropicOutageIsAnsweredByTheOpenAiChatModel() {
        this.anthropic.outage(OPUS, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            String model = context.getBean(Answers.class).answer("Hello");
            assertThat(model).startsWith(GPT);
            assertThat(this.anthropic.stats(OPUS).attempts()).isEqualTo(3);
            assertThat(this.openai.stats(GPT).successes()).isEqualTo(1);
            assertThat(context.getBean(AdmissionRecorder.class).admitted).last()
                .isEqualTo("openai/" + GPT + ":REALTIME/acme");
        });
    }

    @Test
    void withoutOutageTheAnthropicChatModelAnswers() {
        this.runner.run((context) -> {
            assertThat(context.getBean(Answers.class).answer("Hello")).isEqualTo(OPUS);
            assertThat(this.openai.stats().attempts()).isZero();
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class AnswersConfiguration {

        @Bean
        Answers answers(AnthropicChatModel anthropic, OpenAiChatModel openai) {
            return new Answers(anthropic, openai);
        }

        @Bean
        AdmissionRecorder admissionRecorder() {
            return new AdmissionRecorder();
        }

    }

    static class Answers {

        private final Map<String, ChatClient> chatClients;

        Answers(AnthropicChatModel anthropic, OpenAiChatModel openai) {
            this.chatClients = Map.of("anthropic", ChatClient.create(anthropic), "openai", ChatClient.create(openai));
        }

        /**
         * Answers with the chat model of the client the invocation was routed to.
         * @param question the question
         * @return the model that answered
         */
        @Throttled(client = "anthropic", model = OPUS, priority = Priority.REALTIME, tenant = "'acme'")
        public String answer(String question) {
            ThrottleContext context = ThrottleContext.current();
            ChatOptions.Builder<?> options = switch (context.getClient()) {
                case "openai" -> OpenAiChatOptions.builder().model(context.getModel());
                default -> AnthropicChatOptions.builder().model(context.getModel());
            };
            return this.chatClients.get(context.getClient())
                .prompt(question)
                .options(options)
                .call()
                .chatResponse()
                .getMetadata()
                .getModel();
        }

    }

    static class AdmissionRecorder implements ThrottleObserver {

        final List<String> admitted = new CopyOnWriteArrayList<>();

        @Override
        public void onAdmitted(String client, String model, Priority priority, Duration waited) {
            ThrottleContext context = ThrottleContext.current();
            this.admitted.add(client + "/" + model + ":" + priority + "/"
                    + ((context != null && context.getClient().equals(client)) ? context.getTenant() : null));
        }

    }

}
