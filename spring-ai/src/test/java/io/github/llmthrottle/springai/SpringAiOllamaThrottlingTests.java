package io.github.llmthrottle.springai;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.springai.autoconfigure.LlmThrottleSpringAiAutoConfiguration;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import io.github.llmthrottle.webclient.autoconfigure.LlmThrottleWebClientAutoConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.model.ollama.autoconfigure.OllamaApiAutoConfiguration;
import org.springframework.ai.model.ollama.autoconfigure.OllamaChatAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Spring AI 2.0.1's own Ollama chat model, through Spring AI's auto-configuration and
 * llm-throttle's, against the simulated Ollama: {@code call()} goes through Boot's
 * {@code RestClient.Builder} and {@code stream()} through its {@code WebClient.Builder},
 * both to {@code POST /api/chat}, and both are admitted, queued by the model's limits,
 * retried on a 429 and settled from Ollama's {@code prompt_eval_count} and
 * {@code eval_count} (the NDJSON stream's from its last line).
 */
class SpringAiOllamaThrottlingTests {

    private static final String LLAMA = "llama3";

    private static final Instant START = Instant.parse("2026-03-02T09:00:00Z");

    private static final long INPUT_TOKENS_PER_MINUTE = 100_000;

    private static final long OUTPUT_TOKENS_PER_MINUTE = 10_000;

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /**
     * The time of the application and of the simulated Ollama alike, moving only when the
     * application waits (a blocked {@code call()}) or the test advances it (a
     * {@code stream()}, which waits without a thread).
     */
    private FakeClock clock;

    private LlmSimulator simulator;

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.clock = new FakeClock(START).advancingWaits();
        // the limits llm-throttle is configured with: 2 requests a minute
        this.simulator = LlmSimulator.builder()
            .noLatency()
            .clock(this.clock)
            .outputTokens(40)
            .model(LLAMA, ModelLimits.openAi(2, 1_000_000))
            .start();
        String prefix = "llm.throttle.clients.ollama.";
        this.runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                    ReactiveHttpClientAutoConfiguration.class, WebClientAutoConfiguration.class,
                    LlmThrottleAutoConfiguration.class, LlmThrottleWebClientAutoConfiguration.class,
                    LlmThrottleSpringAiAutoConfiguration.class, ToolCallingAutoConfiguration.class,
                    OllamaApiAutoConfiguration.class, OllamaChatAutoConfiguration.class))
            .withBean(TimeSource.class, () -> this.clock)
            .withPropertyValues("spring.ai.ollama.base-url=" + this.simulator.baseUrl(),
                    "spring.ai.ollama.init.pull-model-strategy=never", "spring.ai.ollama.chat.model=" + LLAMA,
                    "spring.ai.ollama.chat.num-predict=200", prefix + "provider=ollama",
                    prefix + "base-url=" + this.simulator.baseUrl(),
                    prefix + "models." + LLAMA + ".requests-per-minute=2",
                    prefix + "models." + LLAMA + ".input-tokens-per-minute=" + INPUT_TOKENS_PER_MINUTE,
                    prefix + "models." + LLAMA + ".output-tokens-per-minute=" + OUTPUT_TOKENS_PER_MINUTE,
                    "llm.throttle.queue.max-wait=5m");
    }

    @AfterEach
    void stop() {
        this.simulator.close();
    }

    @Test
    void callIsAdmittedOnceAndSettledFromOllamasCounts() {
        this.runner.run((context) -> {
            assertThat(context.getBean(OllamaChatModel.class).call("Tell me about token buckets.")).isNotBlank();
            ThrottledModel model = model(context);
            assertSettledOnce(model);
            assertThat(this.simulator.stats(LLAMA).attempts()).isOne();
        });
    }

    @Test
    void streamIsAdmittedOnceAndSettledFromTheLastLineOfItsNdjson() {
        this.runner.run((context) -> {
            List<String> chunks = stream(context).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(chunks).hasSizeGreaterThan(1);
            ThrottledModel model = model(context);
            await().atMost(TIMEOUT).until(() -> model.getLimiter().state().inFlight() == 0);
            assertSettledOnce(model);
            assertThat(this.simulator.stats(LLAMA).attempts()).isOne();
        });
    }

    @Test
    void callsAndStreamsBeyondTheLimitsWaitForTheirTurnInsteadOfMeetingA429() {
        this.runner.run((context) -> {
            OllamaChatModel chat = context.getBean(OllamaChatModel.class);
            // the minute's two requests
            assertThat(chat.call("one")).isNotBlank();
            assertThat(awaitAdvancing(stream(context))).hasSizeGreaterThan(1);
            // a third waits (the blocked thread moves the clock), a fourth too, without
            // a thread (the test moves the clock)
            assertThat(chat.call("three")).isNotBlank();
            Instant third = this.clock.instant();
            assertThat(third).isAfterOrEqualTo(START.plusSeconds(29));
            assertThat(awaitAdvancing(stream(context))).hasSizeGreaterThan(1);
            assertThat(this.clock.instant()).isAfterOrEqualTo(third.plusSeconds(29));
            ModelTotals.Snapshot totals = model(context).getTotals().snapshot();
            assertThat(totals.calls()).isEqualTo(4);
            assertThat(totals.attempts()).isEqualTo(4);
            assertThat(totals.rateLimited()).isZero();
            assertThat(this.simulator.stats(LLAMA).rateLimited()).isZero();
            assertThat(this.simulator.stats(LLAMA).successes()).isEqualTo(4);
        });
    }

    @Test
    void a429IsRetriedAfterTheServersWaitForCallAndStream() {
        this.simulator.script(LLAMA, Fault.status(429).retryAfter("2"));
        this.runner.run((context) -> {
            assertThat(context.getBean(OllamaChatModel.class).call("Tell me about token buckets.")).isNotBlank();
            assertThat(this.clock.sleeps()).isNotEmpty();
            this.simulator.script(LLAMA, Fault.status(429).retryAfter("2"));
            assertThat(awaitAdvancing(stream(context))).hasSizeGreaterThan(1);
            ModelTotals.Snapshot totals = model(context).getTotals().snapshot();
            assertThat(totals.calls()).isEqualTo(2);
            assertThat(totals.rateLimited()).isEqualTo(2);
            assertThat(totals.retries()).isEqualTo(2);
            assertThat(totals.succeeded()).isEqualTo(2);
            assertThat(this.simulator.stats(LLAMA).attempts()).isEqualTo(4);
            assertThat(this.simulator.stats(LLAMA).successes()).isEqualTo(2);
        });
    }

    /**
     * One call settled from the simulator's counts: its 40 output tokens and its input
     * taken from the buckets, the rest of the 200 reserved by {@code num_predict} given
     * back, its slot returned.
     */
    private static void assertSettledOnce(ThrottledModel model) {
        ModelTotals.Snapshot totals = model.getTotals().snapshot();
        assertThat(totals.calls()).isOne();
        assertThat(totals.attempts()).isOne();
        assertThat(totals.succeeded()).isOne();
        assertThat(totals.outputTokens()).isEqualTo(40);
        assertThat(totals.inputTokens()).isPositive();
        LimiterState state = model.getLimiter().state();
        assertThat(state.inFlight()).isZero();
        assertThat(state.available().outputTokens()).isEqualTo(OUTPUT_TOKENS_PER_MINUTE - 40);
        assertThat(state.available().inputTokens()).isEqualTo(INPUT_TOKENS_PER_MINUTE - totals.inputTokens());
        assertThat(state.available().requests()).isOne();
    }

    private static CompletableFuture<List<String>> stream(ApplicationContext context) {
        return context.getBean(OllamaChatModel.class).stream("Tell me about token buckets.").collectList().toFuture();
    }

    /** Waits for a stream, moving the fake clock a second at a time meanwhile. */
    private <T> T awaitAdvancing(CompletableFuture<T> future) throws Exception {
        await().atMost(TIMEOUT).until(() -> {
            this.clock.advance(Duration.ofSeconds(1));
            return future.isDone();
        });
        return future.get();
    }

    private static ThrottledModel model(ApplicationContext context) {
        return context.getBean(LlmThrottleRegistry.class).getClient("ollama").model(LLAMA);
    }

}
