package io.github.llmthrottle.client;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.test.SimulatorStats;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Against the testkit simulator whose buckets hold two seconds of each per-minute limit
 * (a provider enforcing its limit over a shorter interval): a burst at start-up within
 * the minute's limit but beyond the provider's bucket, its callers started together. Slow
 * start probes with one call, learns the provider's burst from its headers, and sends no
 * more than it can take; without it, the full local bucket sends the whole burst and the
 * provider refuses it.
 * <p>
 * The control without slow start runs the simulator and the pipeline on one fake clock
 * that moves only while every unfinished call waits on it ({@link StalledClock}), so that
 * the provider's bucket does not refill while a loaded machine takes seconds to send the
 * burst. With slow start both run on the real clock: a slower machine only gives the
 * provider more time to refill, so fewer refusals.
 */
class ProviderBurstSimulatorTests {

    private static final String MODEL = "claude-sonnet-4-5";

    /** 200 input tokens by the simulator's four characters a token. */
    private static final String PROMPT = "x".repeat(800);

    /**
     * 400 input tokens: five fill the provider's bucket, so that a burst of them goes
     * well beyond it.
     */
    private static final String LARGE_PROMPT = "x".repeat(1_600);

    private static final int CALLS = 30;

    @Test
    void slowStartAndTheLearnedBurstKeepABurstAtStartUpWithinTheProvidersBucket() throws Exception {
        SimulatorStats stats = burst(true, PROMPT, null);
        assertThat(stats.attempts() - stats.rateLimited()).isEqualTo(CALLS);
        assertThat(stats.rateLimited()).isLessThanOrEqualTo(1);
    }

    @Test
    void withoutSlowStartAFullLocalBucketSendsABurstTheProviderRefuses() throws Exception {
        SimulatorStats stats = burst(false, LARGE_PROMPT, new StalledClock(FakeClock.at("2026-03-02T09:00:00Z")));
        assertThat(stats.rateLimited()).isGreaterThan(5);
    }

    /**
     * Sends the burst.
     * @param clock the clock of both the simulator and the pipeline, or {@code null} for
     * the real one
     */
    private SimulatorStats burst(boolean slowStart, String prompt, @Nullable StalledClock clock) throws Exception {
        // 60,000 input tokens a minute, 1,000 a second, but at most 2,000 at once
        LlmSimulator.Builder builder = LlmSimulator.builder();
        if (clock != null) {
            builder.clock(clock.clock());
        }
        ApplicationContextRunner runner = new ApplicationContextRunner();
        if (clock != null) {
            runner = runner.withBean(TimeSource.class, () -> clock);
        }
        try (LlmSimulator simulator = builder.model(MODEL, ModelLimits.of(60_000, 60_000, 6_000_000))
            .bucketWindow(Duration.ofSeconds(2))
            .roundRemainingTokens(false)
            .latency(Duration.ofMillis(20), Duration.ZERO)
            .outputTokens(5)
            .start()) {
            List<Integer> statuses = new ArrayList<>();
            runner
                .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                        RestClientAutoConfiguration.class, LlmThrottleAutoConfiguration.class))
                .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                        "llm.throttle.clients.anthropic.base-url=" + simulator.baseUrl(),
                        "llm.throttle.clients.anthropic.models." + MODEL + ".input-tokens-per-minute=60000",
                        "llm.throttle.slow-start.enabled=" + slowStart, "llm.throttle.retry.max-retries=10")
                .run((context) -> {
                    RestClient client = context.getBean("anthropicRestClient", RestClient.class);
                    ExecutorService pool = Executors.newFixedThreadPool(CALLS);
                    CyclicBarrier together = new CyclicBarrier(CALLS);
                    AtomicInteger running = new AtomicInteger(CALLS);
                    try {
                        List<Future<?>> calls = new ArrayList<>();
                        for (int i = 0; i < CALLS; i++) {
                            calls.add(pool.submit(() -> {
                                try {
                                    together.await(60, TimeUnit.SECONDS);
                                    call(client, prompt);
                                    return null;
                                }
                                finally {
                                    running.decrementAndGet();
                                }
                            }));
                        }
                        if (clock != null) {
                            clock.advanceWhileAllWait(running, Duration.ofSeconds(60));
                        }
                        for (Future<?> call : calls) {
                            call.get(60, TimeUnit.SECONDS);
                            statuses.add(200);
                        }
                    }
                    finally {
                        pool.shutdownNow();
                    }
                });
            assertThat(statuses).hasSize(CALLS);
            return simulator.stats(MODEL);
        }
    }

    private static void call(RestClient client, String prompt) {
        client.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body(Map.of("model", MODEL, "max_tokens", 5, "messages",
                    List.of(Map.of("role", "user", "content", prompt))))
            .retrieve()
            .body(String.class);
    }

    /**
     * The pipeline's time for the control: a fake clock that moves, ten milliseconds at a
     * time, only while every unfinished call waits on it (for admission or before a
     * retry), as a discrete-event simulation does. However slowly the machine sends the
     * burst, no time passes meanwhile, so the provider's bucket refills only between the
     * waves the pipeline itself spaces out.
     */
    private static final class StalledClock implements TimeSource {

        private static final Duration STEP = Duration.ofMillis(10);

        private final FakeClock clock;

        private final AtomicInteger waiting = new AtomicInteger();

        StalledClock(FakeClock clock) {
            this.clock = clock;
        }

        /**
         * Moves the clock while every one of the {@code running} calls waits on it, until
         * none runs.
         */
        void advanceWhileAllWait(AtomicInteger running, Duration timeout) throws InterruptedException {
            long end = System.nanoTime() + timeout.toNanos();
            while (running.get() > 0 && System.nanoTime() < end) {
                if (this.waiting.get() >= running.get()) {
                    this.clock.advance(STEP);
                }
                Thread.sleep(1);
            }
        }

        @Override
        public Instant instant() {
            return this.clock.instant();
        }

        @Override
        public long nanoTime() {
            return this.clock.nanoTime();
        }

        @Override
        public void sleep(Duration duration) throws InterruptedException {
            long until = this.clock.nanoTime() + duration.toNanos();
            this.waiting.incrementAndGet();
            try {
                while (this.clock.nanoTime() < until) {
                    Thread.sleep(1);
                }
            }
            finally {
                this.waiting.decrementAndGet();
            }
        }

        @Override
        public void await(Condition condition, long nanos) throws InterruptedException {
            // a millisecond of real time at most, then the caller reads the clock again
            this.waiting.incrementAndGet();
            try {
                condition.awaitNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            finally {
                this.waiting.decrementAndGet();
            }
        }

        @Override
        public Scheduled schedule(Runnable task, long nanos) {
            return this.clock.schedule(task, nanos);
        }

        @Override
        public Clock clock() {
            return this.clock;
        }

    }

}
