package io.github.llmthrottle.annotation;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.RetryAfterTooLongException;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.Throttled;
import io.github.llmthrottle.TokenQuotaExceededException;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottleObserver;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.routing.CircuitState;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import org.jspecify.annotations.Nullable;
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
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @Throttled} methods against the testkit's simulated Anthropic API: routing to
 * the fallback model, the fallback method, what is never routed around, preemptive
 * routing on a saturated limiter, tenant and priority, and the circuit of each model.
 */
class ThrottledRoutingTests {

    private static final String OPUS = "claude-opus-4-7";

    private static final String SONNET = "claude-sonnet-4-5";

    private static final Instant START = Instant.parse("2026-03-02T09:00:00Z");

    /**
     * The time of the application and of the simulated provider alike: it moves only by
     * the application's sleeps and waits, and when a test advances it, so what depends on
     * time (a circuit's open wait, buckets, quotas) does not depend on the machine's
     * speed or the day.
     */
    private FakeClock clock;

    private LlmSimulator simulator;

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.clock = new FakeClock(START).advancingWaits();
        this.simulator = LlmSimulator.builder().noLatency().clock(this.clock).start();
        this.runner = runner(this.simulator, this.clock).withUserConfiguration(AnswersConfiguration.class);
    }

    /**
     * An application with one client, {@code anthropic}, on the simulator: opus falls
     * back to sonnet, and calls are retried twice without real delays.
     */
    static ApplicationContextRunner runner(LlmSimulator simulator, FakeClock clock) {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    RestClientAutoConfiguration.class, LlmThrottleAutoConfiguration.class))
            .withBean(TimeSource.class, () -> clock)
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + simulator.baseUrl(),
                    "llm.throttle.clients.anthropic.api-key=test-key",
                    "llm.throttle.clients.anthropic.default-model=" + OPUS,
                    "llm.throttle.clients.anthropic.models." + OPUS + ".fallback=" + SONNET,
                    "llm.throttle.clients.anthropic.models." + SONNET + ".requests-per-minute=1000",
                    "llm.throttle.retry.max-retries=2", "llm.throttle.retry.delay=1ms",
                    "llm.throttle.retry.max-delay=5ms", "llm.throttle.retry.jitter=none");
    }

    @AfterEach
    void stop() {
        this.simulator.close();
    }

    @Test
    void whenOpusIsAlwaysOverloadedTheAnswerComesFromSonnet() {
        this.simulator.outage(OPUS, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            Answer answer = answers(context).answer(new Question("acme", "Hello"));
            assertThat(answer.model()).isEqualTo(SONNET);
            assertThat(answer.attempt()).isEqualTo(1);
            assertThat(answer.body()).contains("\"model\":\"" + SONNET + "\"");
            assertThat(ThrottleContext.current()).isNull();
            assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(3);
            assertThat(this.simulator.stats(SONNET).successes()).isEqualTo(1);
            assertThat(totals(context, OPUS).fallbacks()).isEqualTo(1);
            assertThat(observer(context).fallbacks).singleElement()
                .satisfies((fallback) -> assertThat(fallback).startsWith(OPUS + "->" + SONNET + ":")
                    .contains(RetriesExhaustedException.class.getSimpleName()));
        });
    }

    @Test
    void whenOpusHasUsedItsDailyTokenQuotaTheAnswerComesFromSonnetWithoutCallingOpus() {
        this.runner.withPropertyValues("llm.throttle.clients.anthropic.models." + OPUS + ".tokens-per-day=10")
            .run((context) -> {
                Answer answer = answers(context).answer(new Question("acme", "Hello"));
                assertThat(answer.model()).isEqualTo(SONNET);
                assertThat(this.simulator.stats(OPUS).attempts()).isZero();
                assertThat(observer(context).fallbacks).singleElement()
                    .satisfies((fallback) -> assertThat(fallback).startsWith(OPUS + "->" + SONNET + ":")
                        .contains(TokenQuotaExceededException.class.getSimpleName()));
            });
    }

    @Test
    void aServerWaitLongerThanTheInvocationsMaxWaitRoutesToTheNextModelWithoutSleeping() {
        this.simulator.script(OPUS, Fault.overloaded().retryAfter("20"));
        this.runner.run((context) -> {
            Answer answer = answers(context).answer(new Question("acme", "Hello"));
            assertThat(answer.model()).isEqualTo(SONNET);
            assertThat(this.clock.sleeps()).isEmpty();
            assertThat(this.clock.instant()).isEqualTo(START);
            assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(1);
            assertThat(observer(context).fallbacks).singleElement()
                .satisfies(
                        (fallback) -> assertThat(fallback).contains(RetryAfterTooLongException.class.getSimpleName()));
        });
    }

    @Test
    void whenEveryModelFailsTheFallbackMethodGetsTheCause() {
        this.simulator.outage(LlmSimulator.ANY_MODEL, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            Answer answer = answers(context).answer(new Question("acme", "Hello"));
            assertThat(answer.model()).isEqualTo("cache");
            assertThat(answer.cause()).isInstanceOf(RetriesExhaustedException.class)
                .hasMessageContaining(SONNET)
                .hasMessageContaining("529");
            assertThat(((LlmThrottleException) answer.cause()).getModel()).isEqualTo(SONNET);
            assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(3);
            assertThat(this.simulator.stats(SONNET).attempts()).isEqualTo(3);
            assertThat(ThrottleContext.current()).isNull();
        });
    }

    @Test
    void withoutFallbackMethodTheLastFailurePropagates() {
        this.simulator.outage(LlmSimulator.ANY_MODEL, Duration.ofMinutes(10));
        this.runner.run((context) -> assertThatExceptionOfType(RetriesExhaustedException.class)
            .isThrownBy(() -> answers(context).explicitChain("Hello"))
            .satisfies((ex) -> assertThat(ex.getModel()).isEqualTo(SONNET)));
    }

    @Test
    void aBadRequestOnOpusPropagatesAndSonnetIsNeverCalled() {
        this.simulator.script(OPUS, Fault.status(400));
        this.runner.run((context) -> {
            assertThatExceptionOfType(HttpClientErrorException.BadRequest.class)
                .isThrownBy(() -> answers(context).answer(new Question("acme", "Hello")));
            assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(1);
            assertThat(this.simulator.stats(SONNET).attempts()).isZero();
            assertThat(observer(context).fallbacks).isEmpty();
            assertThat(ThrottleContext.current()).isNull();
        });
    }

    @Test
    void aQuotaErrorOnOpusIsNotRoutedAround() {
        this.simulator.script(OPUS, Fault.quotaExceeded());
        this.runner.run((context) -> {
            assertThatExceptionOfType(HttpClientErrorException.TooManyRequests.class)
                .isThrownBy(() -> answers(context).answer(new Question("acme", "Hello")));
            assertThat(this.simulator.stats(SONNET).attempts()).isZero();
        });
    }

    @Test
    void withOpussLimiterSaturatedTheCallGoesToSonnetWithoutARequestToOpus() {
        this.runner.withPropertyValues("llm.throttle.clients.anthropic.models." + OPUS + ".requests-per-minute=2")
            .run((context) -> {
                RestClient restClient = context.getBean("anthropicRestClient", RestClient.class);
                call(restClient, OPUS);
                call(restClient, OPUS);
                assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(2);
                Answer answer = answers(context).answer(new Question("acme", "Hello"));
                assertThat(answer.model()).isEqualTo(SONNET);
                assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(2);
                // neither waited for opus's bucket nor slept: the clock moves only then
                assertThat(this.clock.instant()).isEqualTo(START);
                assertThat(totals(context, OPUS).fallbacks()).isEqualTo(1);
                assertThat(totals(context, OPUS).rejected()).isEqualTo(1);
                assertThat(observer(context).rejections).containsExactly(OPUS + ":max_wait");
            });
    }

    @Test
    void tenantAndPriorityReachAdmission() {
        this.runner.withPropertyValues("llm.throttle.tenants.overrides.acme.requests-per-minute=1").run((context) -> {
            Answers answers = answers(context);
            assertThat(answers.answer(new Question("acme", "first")).model()).isEqualTo(OPUS);
            // acme's one request per minute on opus is spent: its next call goes to
            // sonnet at once
            assertThat(answers.answer(new Question("acme", "second")).model()).isEqualTo(SONNET);
            // another tenant still gets opus
            assertThat(answers.answer(new Question("globex", "third")).model()).isEqualTo(OPUS);
            assertThat(answers.batch("fourth").model()).isEqualTo(OPUS);
            assertThat(observer(context).admitted).containsExactly(OPUS + ":REALTIME", SONNET + ":REALTIME",
                    OPUS + ":REALTIME", OPUS + ":BATCH");
            assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(3);
        });
    }

    @Test
    void theCircuitOpensProbesAndCloses() {
        this.simulator.script(OPUS, Fault.overloaded(), Fault.overloaded(), Fault.overloaded());
        this.runner
            .withPropertyValues("llm.throttle.circuit.failure-threshold=3", "llm.throttle.circuit.open-wait=2s",
                    "llm.throttle.circuit.half-open-probes=1")
            .run((context) -> {
                Answers answers = answers(context);
                ThrottledModel opus = context.getBean(LlmThrottleRegistry.class).getClient("anthropic").model(OPUS);
                // three 529s in a row: the circuit opens, the call is answered by sonnet
                assertThat(answers.answer(new Question("acme", "one")).model()).isEqualTo(SONNET);
                assertThat(opus.getCircuit().state()).isEqualTo(CircuitState.OPEN);
                assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(3);
                // while open: routed to sonnet without trying opus, and plain RestClient
                // calls fail fast
                assertThat(answers.answer(new Question("acme", "two")).model()).isEqualTo(SONNET);
                assertThatExceptionOfType(CircuitOpenException.class)
                    .isThrownBy(() -> call(context.getBean("anthropicRestClient", RestClient.class), OPUS))
                    .satisfies((ex) -> assertThat(ex.getRetryAfter()).isPositive());
                assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(3);
                assertThat(observer(context).rejections).contains(OPUS + ":circuit_open");
                // after the wait one probe goes to opus; it succeeds and closes the
                // circuit
                this.clock.advance(Duration.ofSeconds(2));
                assertThat(opus.getCircuit().state()).isEqualTo(CircuitState.HALF_OPEN);
                assertThat(answers.answer(new Question("acme", "three")).model()).isEqualTo(OPUS);
                assertThat(opus.getCircuit().state()).isEqualTo(CircuitState.CLOSED);
                assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(4);
            });
    }

    @Test
    void aFailedProbeOpensTheCircuitAgain() {
        this.simulator.script(OPUS, Fault.overloaded(), Fault.overloaded(), Fault.status(500));
        this.runner
            .withPropertyValues("llm.throttle.circuit.failure-threshold=2", "llm.throttle.circuit.open-wait=1s",
                    "llm.throttle.circuit.half-open-probes=1", "llm.throttle.retry.max-retries=0")
            .run((context) -> {
                Answers answers = answers(context);
                ThrottledModel opus = context.getBean(LlmThrottleRegistry.class).getClient("anthropic").model(OPUS);
                assertThat(answers.answer(new Question("acme", "one")).model()).isEqualTo(SONNET);
                assertThat(answers.answer(new Question("acme", "two")).model()).isEqualTo(SONNET);
                assertThat(opus.getCircuit().state()).isEqualTo(CircuitState.OPEN);
                this.clock.advance(Duration.ofSeconds(1));
                assertThat(opus.getCircuit().state()).isEqualTo(CircuitState.HALF_OPEN);
                assertThat(answers.answer(new Question("acme", "probe")).model()).isEqualTo(SONNET);
                assertThat(opus.getCircuit().state()).isEqualTo(CircuitState.OPEN);
                assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(3);
            });
    }

    private static Answers answers(AssertableApplicationContext context) {
        return context.getBean(Answers.class);
    }

    private static RecordingObserver observer(AssertableApplicationContext context) {
        return context.getBean(RecordingObserver.class);
    }

    private static ModelTotals.Snapshot totals(AssertableApplicationContext context, String model) {
        return context.getBean(LlmThrottleRegistry.class).getClient("anthropic").model(model).getTotals().snapshot();
    }

    static String call(RestClient restClient, String model) {
        return restClient.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body("{\"model\":\"" + model
                    + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}")
            .retrieve()
            .body(String.class);
    }

    record Question(String tenant, String text) {
    }

    record Answer(String model, int attempt, @Nullable String body, @Nullable Throwable cause) {
    }

    /**
     * A service whose methods call the throttled RestClient for the model they were
     * routed to.
     */
    static class Answers {

        private final RestClient restClient;

        Answers(RestClient restClient) {
            this.restClient = restClient;
        }

        @Throttled(priority = Priority.REALTIME, tenant = "#question.tenant()", maxWait = "1s",
                fallbackMethod = "cachedAnswer")
        public Answer answer(Question question) {
            ThrottleContext context = ThrottleContext.current();
            return new Answer(context.getModel(), context.getAttempt(), call(this.restClient, context.getModel()),
                    null);
        }

        @Throttled(client = "anthropic", model = OPUS, fallback = SONNET)
        public Answer explicitChain(String text) {
            String model = ThrottleContext.currentModel();
            return new Answer(model, 0, call(this.restClient, model), null);
        }

        @Throttled(priority = Priority.BATCH, maxWait = "PT2S")
        public Answer batch(String text) {
            String model = ThrottleContext.currentModel();
            return new Answer(model, 0, call(this.restClient, model), null);
        }

        Answer cachedAnswer(Question question, Throwable cause) {
            assertThat(ThrottleContext.current()).isNull();
            return new Answer("cache", -1, null, cause);
        }

    }

    static class RecordingObserver implements ThrottleObserver {

        final List<String> fallbacks = new CopyOnWriteArrayList<>();

        final List<String> admitted = new CopyOnWriteArrayList<>();

        final List<String> rejections = new CopyOnWriteArrayList<>();

        @Override
        public void onFallback(String client, String from, String to, Throwable cause) {
            this.fallbacks.add(from + "->" + to + ":" + cause.getClass().getSimpleName());
        }

        @Override
        public void onAdmitted(String client, String model, Priority priority, Duration waited) {
            this.admitted.add(model + ":" + priority);
        }

        @Override
        public void onRejected(String client, String model, RejectionReason rejection, LlmThrottleException exception) {
            this.rejections.add(model + ":" + rejection.tag());
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class AnswersConfiguration {

        @Bean
        Answers answers(@Qualifier("anthropicRestClient") RestClient restClient) {
            return new Answers(restClient);
        }

        @Bean
        RecordingObserver recordingObserver() {
            return new RecordingObserver();
        }

    }

}
