package io.github.llmthrottle.springai;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.Throttled;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.Caller;
import io.github.llmthrottle.client.ThrottleObserver;
import io.github.llmthrottle.springai.autoconfigure.LlmThrottleSpringAiAutoConfiguration;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import org.springframework.ai.anthropic.AnthropicChatOptions;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.model.anthropic.autoconfigure.AnthropicChatAutoConfiguration;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @Throttled} method calling Spring AI 2.0.1's {@code ChatClient} (its
 * {@code call()}, on the method's thread) against the simulated provider: the call runs
 * with the invocation's priority and tenant, and an overloaded preferred model routes the
 * invocation to its fallback.
 */
class SpringAiThrottledRoutingTests {

    private static final String OPUS = "claude-opus-4-7";

    private static final String SONNET = "claude-sonnet-4-5";

    private static final Instant START = Instant.parse("2026-03-02T09:00:00Z");

    /**
     * The time of the application and of the simulated provider alike, moving only when
     * the application sleeps or waits: whether a call slept does not depend on how fast
     * the machine runs.
     */
    private FakeClock clock;

    private LlmSimulator simulator;

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.clock = new FakeClock(START).advancingWaits();
        this.simulator = LlmSimulator.builder().noLatency().clock(this.clock).start();
        this.runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    RestClientAutoConfiguration.class, LlmThrottleAutoConfiguration.class,
                    LlmThrottleSpringAiAutoConfiguration.class, ToolCallingAutoConfiguration.class,
                    AnthropicChatAutoConfiguration.class, ChatClientAutoConfiguration.class))
            .withUserConfiguration(AnswersConfiguration.class)
            .withBean(TimeSource.class, () -> this.clock)
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + this.simulator.baseUrl(),
                    "llm.throttle.clients.anthropic.default-model=" + OPUS,
                    "llm.throttle.clients.anthropic.models." + OPUS + ".fallback=" + SONNET,
                    "llm.throttle.clients.anthropic.models." + SONNET + ".requests-per-minute=1000",
                    "llm.throttle.retry.max-retries=2", "llm.throttle.retry.delay=1ms",
                    "llm.throttle.retry.max-delay=5ms", "spring.ai.anthropic.api-key=test",
                    "spring.ai.anthropic.base-url=" + this.simulator.baseUrl(),
                    "spring.ai.anthropic.chat.max-tokens=200");
    }

    @AfterEach
    void stop() {
        this.simulator.close();
    }

    @Test
    void overloadedPreferredModelRoutesTheChatClientCallToItsFallback() {
        this.simulator.outage(OPUS, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            String model = context.getBean(Answers.class).answer("Hello");
            assertThat(model).isEqualTo(SONNET);
            assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(3);
            assertThat(this.simulator.stats(SONNET).successes()).isEqualTo(1);
        });
    }

    @Test
    void chatClientCallRunsWithTheInvocationsPriorityAndTenant() {
        this.runner.run((context) -> {
            context.getBean(Answers.class).answer("Hello");
            assertThat(context.getBean(AdmissionRecorder.class).admitted).containsExactly(OPUS + ":REALTIME/acme");
        });
    }

    @Test
    void streamRunsWithTheInvocationsPriorityAndTenantOnAnotherThread() {
        this.runner.run((context) -> {
            context.getBean(Answers.class).streamedAnswer("Hello");
            assertThat(context.getBean(AdmissionRecorder.class).admitted).containsExactly(OPUS + ":BATCH/globex");
        });
    }

    /**
     * A method that returns the stream unsubscribed has ended (with its thread-local
     * context) when the stream is subscribed, here on another thread: the context rides
     * in the stream's Reactor context.
     */
    @Test
    void streamReturnedUnsubscribedRunsWithTheInvocationsPriorityAndTenantWhenSubscribedLater() {
        this.runner.run((context) -> {
            Flux<String> stream = context.getBean(Answers.class).streamLater("Hello");
            assertThat(context.getBean(AdmissionRecorder.class).admitted).isEmpty();
            List<String> chunks = stream.collectList()
                .subscribeOn(Schedulers.boundedElastic())
                .block(Duration.ofSeconds(30));
            assertThat(chunks).isNotEmpty();
            assertThat(context.getBean(AdmissionRecorder.class).admitted).containsExactly(OPUS + ":REALTIME/initech");
        });
    }

    @Test
    void streamReturnedUnsubscribedIsRoutedToTheFallbackWhenItFailsBeforeItsFirstChunk() {
        this.simulator.outage(OPUS, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            List<String> chunks = context.getBean(Answers.class)
                .streamLater("Hello")
                .collectList()
                .subscribeOn(Schedulers.boundedElastic())
                .block(Duration.ofSeconds(30));
            assertThat(chunks).isNotEmpty();
            assertThat(this.simulator.stats(SONNET).successes()).isEqualTo(1);
        });
    }

    @Test
    void overloadedPreferredModelRoutesTheChatClientStreamToItsFallback() {
        this.simulator.outage(OPUS, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            assertThat(context.getBean(Answers.class).streamedAnswer("Hello")).isNotBlank();
            assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(3);
            assertThat(this.simulator.stats(SONNET).successes()).isEqualTo(1);
            assertThat(context.getBean(AdmissionRecorder.class).admitted).containsExactly(OPUS + ":BATCH/globex",
                    OPUS + ":BATCH/globex", OPUS + ":BATCH/globex", SONNET + ":BATCH/globex");
        });
    }

    /**
     * The invocation's max-wait reaches the stream's HTTP call on OkHttp's thread: a
     * server wait longer than it routes to the next model at once instead of being slept.
     */
    @Test
    void serverWaitLongerThanTheInvocationsMaxWaitRoutesTheStreamWithoutSleeping() {
        this.simulator.script(OPUS, Fault.overloaded().retryAfter("20"));
        this.runner.run((context) -> {
            assertThat(context.getBean(Answers.class).streamedAnswer("Hello")).isNotBlank();
            // neither slept nor waited for admission: the clock moves only then
            assertThat(this.clock.sleeps()).isEmpty();
            assertThat(this.clock.instant()).isEqualTo(START);
            assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(1);
            assertThat(this.simulator.stats(SONNET).successes()).isEqualTo(1);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class AnswersConfiguration {

        @Bean
        Answers answers(ChatClient.Builder chatClient) {
            return new Answers(chatClient.build());
        }

        @Bean
        AdmissionRecorder admissionRecorder() {
            return new AdmissionRecorder();
        }

    }

    static class Answers {

        private final ChatClient chatClient;

        Answers(ChatClient chatClient) {
            this.chatClient = chatClient;
        }

        /**
         * Answers with the model the invocation was routed to.
         * @param question the question
         * @return the model that answered
         */
        @Throttled(client = "anthropic", model = OPUS, priority = Priority.REALTIME, tenant = "'acme'")
        public String answer(String question) {
            return this.chatClient.prompt(question)
                .options(AnthropicChatOptions.builder().model(ThrottleContext.currentModel()))
                .call()
                .chatResponse()
                .getMetadata()
                .getModel();
        }

        /**
         * Streams an answer from the model the invocation was routed to.
         * @param question the question
         * @return the answer
         */
        /**
         * The stream of an answer, subscribed by the caller after the invocation ended.
         * @param question the question
         * @return the answer's chunks
         */
        @Throttled(client = "anthropic", model = OPUS, priority = Priority.REALTIME, tenant = "'initech'")
        public Flux<String> streamLater(String question) {
            return this.chatClient.prompt(question)
                .options(AnthropicChatOptions.builder().model(ThrottleContext.currentModel()))
                .stream()
                .content();
        }

        @Throttled(client = "anthropic", model = OPUS, priority = Priority.BATCH, tenant = "'globex'", maxWait = "5s")
        public String streamedAnswer(String question) {
            return String.join("",
                    this.chatClient.prompt(question)
                        .options(AnthropicChatOptions.builder().model(ThrottleContext.currentModel()))
                        .stream()
                        .content()
                        .collectList()
                        .block(Duration.ofSeconds(30)));
        }

    }

    /**
     * Records each admission with the tenant of its call's caller (the call's view of the
     * observer knows it, on whatever thread the call runs).
     */
    static class AdmissionRecorder implements ThrottleObserver {

        final List<String> admitted = new CopyOnWriteArrayList<>();

        @Override
        public ThrottleObserver forCall(Caller caller) {
            return new ThrottleObserver() {

                @Override
                public void onAdmitted(String client, String model, Priority priority, Duration waited) {
                    AdmissionRecorder.this.admitted.add(model + ":" + priority + "/" + caller.tenant());
                }

            };
        }

    }

}
