package io.github.llmthrottle.annotation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmthrottle.ContextWindowExceededException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.Throttled;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottleObserver;
import io.github.llmthrottle.routing.CircuitState;
import io.github.llmthrottle.test.LlmSimulator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Routing across clients and by context window, against two simulated providers: an
 * Anthropic one (the {@code anthropic} client) and an OpenAI-compatible one (the
 * {@code openai} client). A provider outage on the Anthropic client is routed to a model
 * of the OpenAI client, whose calls carry the invocation's priority and tenant; a prompt
 * too large for a model's context window is routed to a model whose window fits, or fails
 * before sending with both numbers.
 */
class CrossClientRoutingTests {

    private static final String OPUS = "claude-opus-4-7";

    private static final String HAIKU = "claude-haiku-4-5";

    private static final String SMALL = "claude-small";

    private static final String SONNET = "claude-sonnet-4-5";

    private static final String GPT = "gpt-4o-mini";

    /** About 5,000 tokens of prompt at four characters a token. */
    private static final String LONG_PROMPT = "lorem ipsum ".repeat(1700);

    private LlmSimulator anthropic;

    private LlmSimulator openai;

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.anthropic = LlmSimulator.builder().noLatency().start();
        this.openai = LlmSimulator.builder().noLatency().start();
        String models = "llm.throttle.clients.anthropic.models.";
        this.runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    RestClientAutoConfiguration.class, LlmThrottleAutoConfiguration.class))
            .withUserConfiguration(AnswersConfiguration.class)
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + this.anthropic.baseUrl(),
                    "llm.throttle.clients.anthropic.api-key=anthropic-key",
                    "llm.throttle.clients.anthropic.default-model=" + OPUS, models + OPUS + ".fallback=openai:" + GPT,
                    models + HAIKU + ".context-window=2000", models + SMALL + ".context-window=4000",
                    models + SONNET + ".context-window=200000", "llm.throttle.clients.openai.provider=openai",
                    "llm.throttle.clients.openai.base-url=" + this.openai.openAiBaseUrl(),
                    "llm.throttle.clients.openai.api-key=openai-key",
                    "llm.throttle.clients.openai.models." + GPT + ".requests-per-minute=1000",
                    "llm.throttle.clients.openai.models." + GPT + ".context-window=128000",
                    "llm.throttle.retry.max-retries=2", "llm.throttle.retry.delay=1ms",
                    "llm.throttle.retry.max-delay=5ms", "llm.throttle.retry.jitter=none",
                    "llm.throttle.circuit.failure-threshold=3", "llm.throttle.circuit.open-wait=10m");
    }

    @AfterEach
    void stop() {
        this.anthropic.close();
        this.openai.close();
    }

    @Test
    void anAnthropicOutageIsAnsweredByTheOpenAiClientWithTheInvocationsPriorityAndTenant() {
        this.anthropic.outage(OPUS, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            Answer answer = answers(context).answer("acme", "Hello");
            assertThat(answer.client()).isEqualTo("openai");
            assertThat(answer.model()).isEqualTo(GPT);
            assertThat(answer.body()).contains("chat.completion");
            assertThat(this.anthropic.stats(OPUS).attempts()).isEqualTo(3);
            assertThat(this.openai.stats(GPT).successes()).isEqualTo(1);
            RecordingObserver observer = observer(context);
            // every attempt on either client was admitted with the invocation's priority
            // and tenant
            assertThat(observer.admitted).last().isEqualTo("openai/" + GPT + "/REALTIME/acme");
            assertThat(observer.admitted).hasSizeGreaterThan(1)
                .allMatch((admitted) -> admitted.equals("anthropic/" + OPUS + "/REALTIME/acme")
                        || admitted.equals("openai/" + GPT + "/REALTIME/acme"));
            assertThat(observer.fallbacks).containsExactly("anthropic/" + OPUS + "->openai:" + GPT);
            assertThat(totals(context, "anthropic", OPUS).fallbacks()).isEqualTo(1);
            assertThat(totals(context, "openai", GPT).succeeded()).isEqualTo(1);
            assertThat(ThrottleContext.current()).isNull();
        });
    }

    @Test
    void whileTheAnthropicCircuitIsOpenCallsGoToTheOpenAiClientWithoutTryingAnthropic() {
        this.anthropic.outage(OPUS, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            Answers answers = answers(context);
            assertThat(answers.answer("acme", "one").client()).isEqualTo("openai");
            assertThat(
                    context.getBean(LlmThrottleRegistry.class).getClient("anthropic").model(OPUS).getCircuit().state())
                .isEqualTo(CircuitState.OPEN);
            assertThat(answers.answer("acme", "two").client()).isEqualTo("openai");
            assertThat(this.anthropic.stats(OPUS).attempts()).isEqualTo(3);
            assertThat(this.openai.stats(GPT).successes()).isEqualTo(2);
            assertThat(observer(context).rejections).containsExactly("anthropic/" + OPUS + ":circuit_open");
        });
    }

    @Test
    void aPromptTooLargeForTheWindowIsAnsweredByTheNextModelWhoseWindowFits() {
        this.runner.run((context) -> {
            Answers answers = answers(context);
            Answer answer = answers.summarize(LONG_PROMPT);
            assertThat(answer.model()).isEqualTo(SONNET);
            // haiku's request failed before sending; small's window is known to be too
            // small for it, so the method did not even run for small
            assertThat(answers.routed()).containsExactly(HAIKU, SONNET);
            assertThat(this.anthropic.stats(HAIKU).attempts()).isZero();
            assertThat(this.anthropic.stats(SMALL).attempts()).isZero();
            assertThat(this.anthropic.stats(SONNET).successes()).isEqualTo(1);
            assertThat(observer(context).rejections).containsExactly("anthropic/" + HAIKU + ":context_window",
                    "anthropic/" + SMALL + ":context_window");
            assertThat(totals(context, "anthropic", HAIKU).rejected()).isEqualTo(1);
            assertThat(totals(context, "anthropic", HAIKU).fallbacks()).isEqualTo(1);
            // a short prompt stays on haiku
            assertThat(answers.summarize("Hello").model()).isEqualTo(HAIKU);
        });
    }

    @Test
    void aPromptTooLargeForAnthropicsWindowIsAnsweredByTheOpenAiClient() {
        this.runner.run((context) -> {
            Answer answer = answers(context).summarizeAnywhere(LONG_PROMPT);
            assertThat(answer.client()).isEqualTo("openai");
            assertThat(answer.model()).isEqualTo(GPT);
            assertThat(this.anthropic.stats().attempts()).isZero();
            assertThat(this.openai.stats(GPT).successes()).isEqualTo(1);
        });
    }

    @Test
    void whenNoWindowFitsTheCallFailsBeforeSendingWithBothNumbers() {
        this.runner.run((context) -> assertThatExceptionOfType(ContextWindowExceededException.class)
            .isThrownBy(() -> answers(context).summarizeSmall(LONG_PROMPT))
            .satisfies((ex) -> {
                assertThat(ex.getClient()).isEqualTo("anthropic");
                assertThat(ex.getModel()).isEqualTo(SMALL);
                assertThat(ex.getContextWindow()).isEqualTo(4000);
                assertThat(ex.getEstimatedInputTokens()).isBetween(4000L, 7000L);
                assertThat(ex.getRejectionReason()).isEqualTo(RejectionReason.CONTEXT_WINDOW);
                assertThat(ex.getRetryAfter()).isNull();
                assertThat(this.anthropic.stats().attempts()).isZero();
            }));
    }

    @Test
    void outsideThrottledAnOversizedRequestFailsBeforeSendingNamingClientModelAndBothNumbers() {
        this.runner.run((context) -> {
            RestClient restClient = context.getBean("anthropicRestClient", RestClient.class);
            assertThatExceptionOfType(ContextWindowExceededException.class)
                .isThrownBy(() -> messages(restClient, HAIKU, LONG_PROMPT, 100))
                .satisfies((ex) -> assertThat(ex.getMessage()).startsWith("Request needs an estimated ")
                    .contains(String.format("%,d", ex.getRequiredTokens()) + " tokens ("
                            + String.format("%,d", ex.getEstimatedInputTokens()) + " input + 100 max output)")
                    .contains("more than the 2,000-token context window of client 'anthropic', model '" + HAIKU + "'")
                    .endsWith("it was not sent"));
            assertThat(this.anthropic.stats().attempts()).isZero();
            assertThat(totals(context, "anthropic", HAIKU).rejected()).isEqualTo(1);
            assertThat(observer(context).rejections).containsExactly("anthropic/" + HAIKU + ":context_window");
        });
    }

    @Test
    void theWindowHoldsTheInputAndTheReservedOutput() {
        this.runner.run((context) -> {
            RestClient restClient = context.getBean("anthropicRestClient", RestClient.class);
            assertThat(messages(restClient, HAIKU, "Hello", 1500)).contains("\"type\":\"message\"");
            assertThatExceptionOfType(ContextWindowExceededException.class)
                .isThrownBy(() -> messages(restClient, HAIKU, "Hello", 2000))
                .satisfies((ex) -> {
                    assertThat(ex.getMaxOutputTokens()).isEqualTo(2000);
                    assertThat(ex.getRequiredTokens()).isGreaterThan(2000);
                });
            assertThat(this.anthropic.stats(HAIKU).attempts()).isEqualTo(1);
        });
    }

    private static Answers answers(AssertableApplicationContext context) {
        return context.getBean(Answers.class);
    }

    private static RecordingObserver observer(AssertableApplicationContext context) {
        return context.getBean(RecordingObserver.class);
    }

    private static ModelTotals.Snapshot totals(AssertableApplicationContext context, String client, String model) {
        return context.getBean(LlmThrottleRegistry.class).getClient(client).model(model).getTotals().snapshot();
    }

    static String messages(RestClient restClient, String model, String prompt, int maxTokens) {
        return restClient.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body("{\"model\":\"" + model + "\",\"max_tokens\":" + maxTokens
                    + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}")
            .retrieve()
            .body(String.class);
    }

    static String chatCompletions(RestClient restClient, String model, String prompt) {
        return restClient.post()
            .uri("/chat/completions")
            .contentType(MediaType.APPLICATION_JSON)
            .body("{\"model\":\"" + model + "\",\"max_tokens\":100,\"messages\":[{\"role\":\"user\",\"content\":\""
                    + prompt + "\"}]}")
            .retrieve()
            .body(String.class);
    }

    record Answer(String client, String model, String body) {
    }

    /**
     * The documented idiom: both clients' RestClients injected, the one to call picked by
     * {@code ThrottleContext.current().getClient()}.
     */
    static class Answers {

        private final RestClient anthropic;

        private final RestClient openai;

        private final List<String> routed = new CopyOnWriteArrayList<>();

        Answers(RestClient anthropic, RestClient openai) {
            this.anthropic = anthropic;
            this.openai = openai;
        }

        public List<String> routed() {
            return this.routed;
        }

        @Throttled(client = "anthropic", model = OPUS, priority = Priority.REALTIME, tenant = "#tenant")
        public Answer answer(String tenant, String question) {
            return ask(question);
        }

        @Throttled(client = "anthropic", model = HAIKU, fallback = { SMALL, SONNET })
        public Answer summarize(String text) {
            return ask(text);
        }

        @Throttled(client = "anthropic", model = HAIKU, fallback = "openai:" + GPT)
        public Answer summarizeAnywhere(String text) {
            return ask(text);
        }

        @Throttled(client = "anthropic", model = HAIKU, fallback = SMALL)
        public Answer summarizeSmall(String text) {
            return ask(text);
        }

        private Answer ask(String text) {
            ThrottleContext context = ThrottleContext.current();
            this.routed.add(context.getModel());
            String body = switch (context.getClient()) {
                case "openai" -> chatCompletions(this.openai, context.getModel(), text);
                default -> messages(this.anthropic, context.getModel(), text, 100);
            };
            return new Answer(context.getClient(), context.getModel(), body);
        }

    }

    static class RecordingObserver implements ThrottleObserver {

        final List<String> fallbacks = new CopyOnWriteArrayList<>();

        final List<String> admitted = new CopyOnWriteArrayList<>();

        final List<String> rejections = new CopyOnWriteArrayList<>();

        @Override
        public void onFallback(String client, String from, String to, Throwable cause) {
            this.fallbacks.add(client + "/" + from + "->" + to);
        }

        @Override
        public void onAdmitted(String client, String model, Priority priority, Duration waited) {
            ThrottleContext context = ThrottleContext.current();
            this.admitted.add(client + "/" + model + "/" + priority + "/"
                    + ((context != null && context.getClient().equals(client)) ? context.getTenant() : null));
        }

        @Override
        public void onRejected(String client, String model, RejectionReason rejection, LlmThrottleException exception) {
            this.rejections.add(client + "/" + model + ":" + rejection.tag());
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class AnswersConfiguration {

        @Bean
        Answers answers(@Qualifier("anthropicRestClient") RestClient anthropic,
                @Qualifier("openaiRestClient") RestClient openai) {
            return new Answers(anthropic, openai);
        }

        @Bean
        RecordingObserver recordingObserver() {
            return new RecordingObserver();
        }

    }

}
