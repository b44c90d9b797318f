package io.github.llmthrottle.actuate;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.test.Fault;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static io.github.llmthrottle.actuate.ObservedApplication.OPUS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code llmThrottle} health component over real HTTP while the provider throttles.
 */
class LlmThrottleHealthIndicatorWebTests {

    @Test
    void healthStaysUpDuringA429StormAndSaysTheProviderIsThrottling() throws Exception {
        try (ObservedApplication app = ObservedApplication.start("llm.throttle.retry.max-retries=2")) {
            app.call(OPUS);
            JsonNode calm = app.json("/health/llmThrottle");
            assertThat(calm.path("status").asString()).isEqualTo("UP");
            assertThat(calm.path("details").path("anthropic").path(OPUS).path("state").asString()).isEqualTo("OK");

            Fault[] storm = new Fault[8];
            for (int i = 0; i < storm.length; i++) {
                storm[i] = Fault.status(429).retryAfter("1");
            }
            app.simulator().script(OPUS, storm);
            // until the provider has said 429 four times: each pauses the model a second
            // of real time, and a loaded machine needs longer to get there; the deadline
            // only bounds a storm that never comes
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            ExecutorService callers = Executors.newFixedThreadPool(4);
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                running.add(callers.submit(() -> {
                    while (app.simulator().stats(OPUS).rateLimited() < 4 && System.nanoTime() < end) {
                        try {
                            app.call(OPUS);
                        }
                        catch (LlmThrottleException ex) {
                            // expected during the storm
                        }
                    }
                }));
            }
            Set<String> overall = ConcurrentHashMap.newKeySet();
            Set<String> component = ConcurrentHashMap.newKeySet();
            Set<String> states = ConcurrentHashMap.newKeySet();
            while (running.stream().anyMatch((future) -> !future.isDone())) {
                JsonNode health = app.json("/health");
                overall.add(health.path("status").asString());
                JsonNode llm = health.path("components").path("llmThrottle");
                component.add(llm.path("status").asString());
                states.add(llm.path("details").path("anthropic").path(OPUS).path("state").asString());
                Thread.sleep(50);
            }
            callers.shutdown();
            assertThat(callers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            for (Future<?> future : running) {
                future.get();
            }
            assertThat(app.simulator().stats(OPUS).rateLimited()).isGreaterThanOrEqualTo(4);
            assertThat(overall).containsExactly("UP");
            assertThat(component).containsExactly("UP");
            assertThat(states).contains("PROVIDER_THROTTLING");

            JsonNode after = app.json("/health/llmThrottle").path("details").path("anthropic").path(OPUS);
            assertThat(after.path("state").asString()).isEqualTo("PROVIDER_THROTTLING");
            assertThat(after.path("last429").asString()).isNotBlank();
            assertThat(after.path("circuit").asString()).isEqualTo("CLOSED");
        }
    }

}
