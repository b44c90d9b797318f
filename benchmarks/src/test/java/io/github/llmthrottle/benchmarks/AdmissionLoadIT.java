package io.github.llmthrottle.benchmarks;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.test.SimulatorStats;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Load tests of admission control against the simulated provider, on loopback, bounded in
 * count and time. Each offers twice what the provider allows and checks what the issue
 * asks: every call succeeds within max-wait, few 429s, and the binding limit is used to
 * the last token. The figures are printed so that the benchmark report can quote them.
 */
class AdmissionLoadIT {

    private static final String MODEL = "claude-sonnet-4-5";

    private static final String SLOW_MODEL = "claude-haiku-4-5";

    /** The binding dimension: 120,000 input tokens a minute = 2,000 a second. */
    private static final long ITPM = 120_000;

    /** About 200 input tokens per call, so the provider allows 10 calls a second. */
    private static final String PROMPT = "x".repeat(800);

    /** For the priority test: 12,000 input tokens a minute, one call a second. */
    private static final long SLOW_ITPM = 12_000;

    private LlmSimulator simulator;

    @BeforeEach
    void startSimulator() {
        this.simulator = LlmSimulator.builder()
            .model(MODEL, ModelLimits.of(6_000, ITPM, 600_000))
            .model(SLOW_MODEL, ModelLimits.of(6_000, SLOW_ITPM, 600_000))
            .latency(Duration.ofMillis(20), Duration.ofMillis(0))
            .outputTokens(50)
            .start();
    }

    @AfterEach
    void stopSimulator() {
        this.simulator.close();
    }

    @Test
    void atTwiceTheLimitEveryCallSucceedsWithFew429sAndTheInputLimitIsUsedToTheLastToken() {
        runner(ITPM).run((context) -> {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            drain(client, MODEL, ITPM);
            LoadResult result = offer(client, 20, Duration.ofSeconds(6), Priority.NORMAL);
            SimulatorStats stats = this.simulator.stats(MODEL);
            double utilisation = utilisation(result, ITPM);
            double rate429 = (double) stats.rateLimited() / stats.attempts();
            System.out.printf(
                    "load[configured=limit]: calls=%d failed=%d attempts=%d 429s=%d (%.2f%%) "
                            + "busy=%.1fs input-utilisation=%.1f%% max-wait=%.1fs%n",
                    result.calls(), result.failures(), stats.attempts(), stats.rateLimited(), 100 * rate429,
                    result.busySeconds(), 100 * utilisation, result.maxLatency().toMillis() / 1000.0);
            assertThat(result.failures()).as("failed calls").isZero();
            assertThat(result.maxLatency()).isLessThan(Duration.ofSeconds(30));
            assertThat(rate429).as("429s per attempt").isLessThanOrEqualTo(0.01);
            assertThat(utilisation).as("admitted input tokens against the limit").isGreaterThanOrEqualTo(0.90);
        });
    }

    @Test
    void configuredAtTwiceTheProvidersLimitsCalibrationKeeps429sLow() {
        runner(2 * ITPM).run((context) -> {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            drain(client, MODEL, ITPM);
            LoadResult result = offer(client, 20, Duration.ofSeconds(6), Priority.NORMAL);
            SimulatorStats stats = this.simulator.stats(MODEL);
            double rate429 = (double) stats.rateLimited() / stats.attempts();
            LimiterState state = context.getBean(LlmThrottleRegistry.class)
                .getClient("anthropic")
                .model(MODEL)
                .getLimiter()
                .state();
            System.out.printf(
                    "load[configured=2x limit]: calls=%d failed=%d attempts=%d 429s=%d (%.2f%%) "
                            + "input-utilisation=%.1f%% effective-itpm=%s%n",
                    result.calls(), result.failures(), stats.attempts(), stats.rateLimited(), 100 * rate429,
                    100 * utilisation(result, ITPM), state.effectiveLimits().inputTokensPerMinute());
            assertThat(result.failures()).as("failed calls").isZero();
            assertThat(rate429).as("429s per attempt").isLessThanOrEqualTo(0.05);
            assertThat(state.effectiveLimits().inputTokensPerMinute()).isEqualTo(ITPM);
        });
    }

    @Test
    void realtimeCallsOvertakeABacklogOfBatchCalls() throws Exception {
        runner(ITPM).run((context) -> {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            LlmThrottleRegistry registry = context.getBean(LlmThrottleRegistry.class);
            drain(client, SLOW_MODEL, SLOW_ITPM);
            ConcurrentLinkedQueue<String> finished = new ConcurrentLinkedQueue<>();
            java.util.concurrent.atomic.AtomicInteger ahead = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicInteger queuedBatch = new java.util.concurrent.atomic.AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(16);
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int i = 0; i < 14; i++) {
                    String name = "batch-" + i;
                    futures.add(pool.submit(() -> {
                        call(client, SLOW_MODEL, Priority.BATCH);
                        finished.add(name);
                    }));
                }
                awaitQueued(registry, 7);
                futures.add(pool.submit(() -> {
                    call(client, SLOW_MODEL, Priority.REALTIME);
                    finished.add("realtime");
                }));
                // Every batch call still queued once the realtime call is queued (or
                // done)
                // is behind it; every other one went before it.
                queuedBatch.set(awaitRealtimeQueued(registry, finished).queued().batch());
                ahead.set(14 - queuedBatch.get());
                for (Future<?> future : futures) {
                    future.get(60, TimeUnit.SECONDS);
                }
            }
            finally {
                pool.shutdownNow();
            }
            List<String> order = new ArrayList<>(finished);
            int position = order.indexOf("realtime");
            System.out.printf(
                    "priority: batch queued when the realtime call arrived=%d, finished or in flight=%d, "
                            + "realtime finished at position %d of %s%n",
                    queuedBatch.get(), ahead.get(), position, order);
            assertThat(queuedBatch.get()).as("batch calls queued behind the realtime call").isGreaterThanOrEqualTo(3);
            // one call of those behind may finish first: the same latency, another thread
            assertThat(position).as("position of the realtime call in %s", order).isLessThanOrEqualTo(ahead.get() + 1);
            assertThat(order.size() - position - 1).as("batch calls overtaken")
                .isGreaterThanOrEqualTo(queuedBatch.get() - 1);
        });
    }

    private ApplicationContextRunner runner(long itpm) {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    RestClientAutoConfiguration.class, LlmThrottleAutoConfiguration.class))
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + this.simulator.baseUrl(),
                    "llm.throttle.clients.anthropic.api-key=load-test",
                    "llm.throttle.clients.anthropic.models." + MODEL + ".requests-per-minute=6000",
                    "llm.throttle.clients.anthropic.models." + MODEL + ".input-tokens-per-minute=" + itpm,
                    "llm.throttle.clients.anthropic.models." + MODEL + ".output-tokens-per-minute=600000",
                    "llm.throttle.clients.anthropic.models." + MODEL + ".max-concurrency=32",
                    "llm.throttle.clients.anthropic.models." + SLOW_MODEL + ".input-tokens-per-minute=" + SLOW_ITPM,
                    "llm.throttle.queue.max-wait=30s", "llm.throttle.retry.delay=100ms");
    }

    /**
     * Empties the provider's (and our) input-token bucket, so that the test measures the
     * refill.
     */
    private void drain(RestClient client, String model, long itpm) {
        String big = "y".repeat((int) (4 * (itpm / 2 - 500)));
        for (int i = 0; i < 2; i++) {
            client.post()
                .uri("/v1/messages")
                .contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("model", model, "max_tokens", 10, "messages",
                        List.of(Map.of("role", "user", "content", big))))
                .retrieve()
                .body(String.class);
        }
        this.simulator.resetStats();
    }

    /**
     * Offers {@code perSecond} calls a second for {@code duration}, each on its own
     * thread.
     */
    private LoadResult offer(RestClient client, int perSecond, Duration duration, Priority priority)
            throws InterruptedException {
        int calls = (int) (perSecond * duration.toSeconds());
        ExecutorService pool = Executors.newFixedThreadPool(calls);
        ConcurrentLinkedQueue<Duration> latencies = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch done = new CountDownLatch(calls);
        // on the simulator's clock, which keys the per-second stats the result is read
        // from
        Clock clock = this.simulator.clock();
        Instant start = clock.instant();
        AtomicReference<Instant> lastEnd = new AtomicReference<>(start);
        long intervalNanos = 1_000_000_000L / perSecond;
        try {
            for (int i = 0; i < calls; i++) {
                long due = System.nanoTime() + intervalNanos;
                pool.execute(() -> {
                    long began = System.nanoTime();
                    try {
                        call(client, MODEL, priority);
                        latencies.add(Duration.ofNanos(System.nanoTime() - began));
                        lastEnd.accumulateAndGet(clock.instant(), (a, b) -> a.isAfter(b) ? a : b);
                    }
                    catch (Throwable ex) {
                        failures.add(ex);
                    }
                    finally {
                        done.countDown();
                    }
                });
                TimeUnit.NANOSECONDS.sleep(Math.max(0, due - System.nanoTime()));
            }
            assertThat(done.await(90, TimeUnit.SECONDS)).as("all calls ended").isTrue();
        }
        finally {
            pool.shutdownNow();
        }
        failures.forEach((failure) -> System.out.println("failure: " + failure));
        Instant end = lastEnd.get();
        return new LoadResult(calls, failures.size(), start, end,
                latencies.stream().max(Duration::compareTo).orElse(Duration.ZERO));
    }

    /**
     * Input tokens the provider admitted per second against its limit, over the whole
     * seconds of the busy period after the first (whose leftover burst would flatter the
     * figure) and before the last (which is partial).
     */
    private double utilisation(LoadResult result, long itpm) {
        SimulatorStats stats = this.simulator.stats(MODEL);
        Instant from = result.start().plusSeconds(1);
        Instant to = result.end().minusSeconds(1);
        long tokens = 0;
        long seconds = 0;
        for (Map.Entry<Instant, Long> second : stats.inputTokensPerSecond().subMap(from, true, to, false).entrySet()) {
            tokens += second.getValue();
            seconds++;
        }
        assertThat(seconds).as("whole seconds in the busy period").isGreaterThanOrEqualTo(3);
        return tokens / (double) seconds / (itpm / 60.0);
    }

    private static void call(RestClient client, String model, Priority priority) {
        try (ThrottleContext.Scope scope = ThrottleContext
            .open(new ThrottleContext("anthropic", model, priority, null, 0, null))) {
            client.post()
                .uri("/v1/messages")
                .contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("model", model, "max_tokens", 50, "messages",
                        List.of(Map.of("role", "user", "content", PROMPT))))
                .retrieve()
                .body(String.class);
        }
    }

    private static void awaitQueued(LlmThrottleRegistry registry, int batch) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            LimiterState state = registry.getClient("anthropic").model(SLOW_MODEL).getLimiter().state();
            if (state.queued().batch() >= batch) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
        throw new AssertionError("batch calls never queued");
    }

    private static LimiterState awaitRealtimeQueued(LlmThrottleRegistry registry, Collection<String> finished)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            LimiterState state = registry.getClient("anthropic").model(SLOW_MODEL).getLimiter().state();
            if (state.queued().realtime() > 0 || finished.contains("realtime")) {
                return state;
            }
            TimeUnit.MILLISECONDS.sleep(1);
        }
        throw new AssertionError("the realtime call never queued");
    }

    private record LoadResult(int calls, int failures, Instant start, Instant end, Duration maxLatency) {

        double busySeconds() {
            return Duration.between(this.start, this.end).toNanos() / 1e9;
        }

    }

}
