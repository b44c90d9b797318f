package io.github.llmthrottle.benchmarks.load;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.test.SimulatorStats;
import io.github.llmthrottle.webclient.autoconfigure.LlmThrottleWebClientAutoConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 10,000 callers through {@code anthropicWebClient}, arriving at twice the rate the
 * provider's binding limit allows, against the simulated provider on loopback: every call
 * is accounted for, few 429s, the binding limit used to the last token, and the live
 * threads do not grow with the calls waiting (they wait in the queue, not on threads).
 * The figures are printed so that the benchmark report can quote them.
 */
class WebClientLoadIT {

    private static final String MODEL = "claude-sonnet-4-5";

    /** The binding dimension: 2,400,000 input tokens a minute = 40,000 a second. */
    private static final long ITPM = 2_400_000;

    /** About 200 input tokens per call, so the provider allows 200 calls a second. */
    private static final String PROMPT = "x".repeat(800);

    private static final int CALLERS = 10_000;

    /** Twice the 200 calls a second the provider allows. */
    private static final int ARRIVALS_PER_SECOND = 400;

    private LlmSimulator simulator;

    @BeforeEach
    void startSimulator() {
        this.simulator = LlmSimulator.builder()
            .model(MODEL, ModelLimits.of(600_000, ITPM, 60_000_000))
            .latency(Duration.ofMillis(20), Duration.ZERO)
            .outputTokens(50)
            .start();
    }

    @AfterEach
    void stopSimulator() {
        this.simulator.close();
    }

    @Test
    void tenThousandCallersAtTwiceTheLimitWaitWithoutThreads() {
        runner().run((context) -> {
            WebClient client = context.getBean("anthropicWebClient", WebClient.class);
            ThrottledClient throttled = context.getBean(LlmThrottleRegistry.class).getClient("anthropic");
            assertThat(throttled).isNotNull();
            ThrottledClient.ThrottledModel model = throttled.model(MODEL);
            drain(client);
            int threadsBefore = clientThreads();
            AtomicInteger maxQueued = new AtomicInteger();
            AtomicInteger threadsAtMaxQueued = new AtomicInteger();
            AtomicInteger maxThreads = new AtomicInteger();
            Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
            AtomicReference<Instant> end = new AtomicReference<>(Instant.EPOCH);
            AtomicLong maxLatencyNanos = new AtomicLong();
            Instant start = this.simulator.clock().instant();
            Flux.interval(Duration.ofNanos(1_000_000_000L / ARRIVALS_PER_SECOND)).take(CALLERS).doOnNext((i) -> {
                if (i % 100 == 0) {
                    int queued = model.getLimiter().state().queued().total();
                    int threads = clientThreads();
                    maxThreads.accumulateAndGet(threads, Math::max);
                    if (queued > maxQueued.get()) {
                        maxQueued.set(queued);
                        threadsAtMaxQueued.set(threads);
                    }
                }
            }).flatMap((i) -> call(client, outcomes, end, maxLatencyNanos), CALLERS).blockLast(Duration.ofMinutes(5));
            SimulatorStats stats = this.simulator.stats(MODEL);
            int succeeded = outcomes.getOrDefault("success", new AtomicInteger()).get();
            int accounted = outcomes.values().stream().mapToInt(AtomicInteger::get).sum();
            double rate429 = (double) stats.rateLimited() / stats.attempts();
            double utilisation = utilisation(stats, start, end.get());
            LimiterState state = model.getLimiter().state();
            ModelTotals.Snapshot totals = model.getTotals().snapshot();
            System.out.printf(
                    "webclient-load: callers=%d outcomes=%s attempts=%d 429s=%d (%.2f%%) busy=%.1fs "
                            + "input-utilisation=%.1f%% max-latency=%.1fs threads before=%d at-max-queued=%d "
                            + "(queued %d) max=%d end inFlight=%d queued=%d totals.calls=%d%n",
                    CALLERS, outcomes, stats.attempts(), stats.rateLimited(), 100 * rate429,
                    Duration.between(start, end.get()).toMillis() / 1000.0, 100 * utilisation,
                    maxLatencyNanos.get() / 1e9, threadsBefore, threadsAtMaxQueued.get(), maxQueued.get(),
                    maxThreads.get(), state.inFlight(), state.queued().total(), totals.calls());
            assertThat(accounted).as("calls accounted for").isEqualTo(CALLERS);
            assertThat(succeeded).as("calls that succeeded").isEqualTo(CALLERS);
            assertThat(state.inFlight()).isZero();
            assertThat(state.queued().total()).isZero();
            assertThat(maxQueued.get()).as("calls waiting at once").isGreaterThan(1_000);
            assertThat(threadsAtMaxQueued.get() - threadsBefore).as("threads added while calls wait").isLessThan(20);
            assertThat(rate429).as("429s per attempt").isLessThanOrEqualTo(0.005);
            assertThat(utilisation).as("admitted input tokens against the limit").isGreaterThanOrEqualTo(0.97);
        });
    }

    private Mono<Void> call(WebClient client, Map<String, AtomicInteger> outcomes, AtomicReference<Instant> end,
            AtomicLong maxLatencyNanos) {
        return Mono.defer(() -> {
            long began = System.nanoTime();
            return client.post()
                .uri("/v1/messages")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("model", MODEL, "max_tokens", 50, "messages",
                        List.of(Map.of("role", "user", "content", PROMPT))))
                .retrieve()
                .toBodilessEntity()
                .doOnSuccess((response) -> {
                    maxLatencyNanos.accumulateAndGet(System.nanoTime() - began, Math::max);
                    end.accumulateAndGet(this.simulator.clock().instant(), (a, b) -> a.isAfter(b) ? a : b);
                    outcomes.computeIfAbsent("success", (key) -> new AtomicInteger()).incrementAndGet();
                })
                .then()
                .onErrorResume((ex) -> {
                    Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
                    outcomes.computeIfAbsent(cause.getClass().getSimpleName(), (key) -> new AtomicInteger())
                        .incrementAndGet();
                    return Mono.empty();
                });
        });
    }

    /**
     * The live threads of the application: the simulated provider runs in this JVM, and
     * its handler threads (one per request it serves at once) are not the client's.
     */
    private static int clientThreads() {
        return (int) Thread.getAllStackTraces()
            .keySet()
            .stream()
            .filter((thread) -> !thread.getName().startsWith("llm-simulator-"))
            .count();
    }

    /**
     * Takes the minute's burst from the provider's buckets and from the client's, so that
     * the run sees the steady rate.
     */
    private void drain(WebClient client) {
        String big = "y".repeat((int) (4 * (ITPM / 2 - 500)));
        for (int i = 0; i < 2; i++) {
            client.post()
                .uri("/v1/messages")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("model", MODEL, "max_tokens", 10, "messages",
                        List.of(Map.of("role", "user", "content", big))))
                .retrieve()
                .toBodilessEntity()
                .block(Duration.ofMinutes(2));
        }
        this.simulator.resetStats();
    }

    /**
     * Input tokens the provider admitted per second of the busy period, against the
     * limit.
     */
    private static double utilisation(SimulatorStats stats, Instant start, Instant end) {
        long tokens = 0;
        long seconds = 0;
        for (Map.Entry<Instant, Long> second : stats.inputTokensPerSecond()
            .subMap(start.plusSeconds(2), true, end.minusSeconds(1), false)
            .entrySet()) {
            tokens += second.getValue();
            seconds++;
        }
        assertThat(seconds).as("whole seconds in the busy period").isGreaterThanOrEqualTo(10);
        return tokens / (double) seconds / (ITPM / 60.0);
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    ReactiveHttpClientAutoConfiguration.class, WebClientAutoConfiguration.class,
                    LlmThrottleAutoConfiguration.class, LlmThrottleWebClientAutoConfiguration.class))
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + this.simulator.baseUrl(),
                    "llm.throttle.clients.anthropic.api-key=load-test",
                    "llm.throttle.clients.anthropic.models." + MODEL + ".requests-per-minute=600000",
                    "llm.throttle.clients.anthropic.models." + MODEL + ".input-tokens-per-minute=" + ITPM,
                    "llm.throttle.clients.anthropic.models." + MODEL + ".output-tokens-per-minute=60000000",
                    "llm.throttle.queue.capacity=" + (2 * CALLERS), "llm.throttle.queue.max-wait=3m");
    }

}
