package io.github.llmthrottle.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.test.SimulatorStats;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Against the testkit simulator whose buckets hold half a second of each per-minute limit
 * (a provider enforcing its limit over a shorter interval): a burst at start-up within
 * the minute's limit but beyond the provider's bucket. The callers start together, and
 * the provider's bucket is small next to what it refills while a loaded machine sends the
 * burst, so that the burst goes beyond it however slowly it is sent. Slow start probes
 * with one call, learns the provider's burst from its headers, and sends no more than it
 * can take; without it, the full local bucket sends the whole burst and the provider
 * refuses it.
 */
class ProviderBurstSimulatorTests {

    private static final String MODEL = "claude-sonnet-4-5";

    /** 200 input tokens by the simulator's four characters a token. */
    private static final String PROMPT = "x".repeat(800);

    /**
     * 400 input tokens: five fill the provider's bucket, so that a burst of them goes
     * well beyond it even when a loaded machine takes seconds to send it.
     */
    private static final String LARGE_PROMPT = "x".repeat(1_600);

    private static final int CALLS = 30;

    @Test
    void slowStartAndTheLearnedBurstKeepABurstAtStartUpWithinTheProvidersBucket() throws Exception {
        SimulatorStats stats = burst(true, PROMPT);
        assertThat(stats.attempts() - stats.rateLimited()).isEqualTo(CALLS);
        assertThat(stats.rateLimited()).isLessThanOrEqualTo(1);
    }

    @Test
    void withoutSlowStartAFullLocalBucketSendsABurstTheProviderRefuses() throws Exception {
        SimulatorStats stats = burst(false, LARGE_PROMPT);
        assertThat(stats.rateLimited()).isGreaterThan(5);
    }

    private SimulatorStats burst(boolean slowStart, String prompt) throws Exception {
        // 60,000 input tokens a minute, 1,000 a second, but at most 2,000 at once
        try (LlmSimulator simulator = LlmSimulator.builder()
            .model(MODEL, ModelLimits.of(60_000, 60_000, 6_000_000))
            .bucketWindow(Duration.ofSeconds(2))
            .roundRemainingTokens(false)
            .latency(Duration.ofMillis(20), Duration.ZERO)
            .outputTokens(5)
            .start()) {
            List<Integer> statuses = new ArrayList<>();
            new ApplicationContextRunner()
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
                    try {
                        List<Future<?>> calls = new ArrayList<>();
                        for (int i = 0; i < CALLS; i++) {
                            calls.add(pool.submit(() -> {
                                together.await(60, TimeUnit.SECONDS);
                                call(client, prompt);
                                return null;
                            }));
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

}
