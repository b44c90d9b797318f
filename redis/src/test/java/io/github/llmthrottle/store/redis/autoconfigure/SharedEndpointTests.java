package io.github.llmthrottle.store.redis.autoconfigure;

import java.time.Duration;
import java.util.UUID;

import io.github.llmthrottle.actuate.LlmThrottleEndpoint;
import io.github.llmthrottle.actuate.LlmThrottleEndpoint.ModelStateDescriptor;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.autoconfigure.LlmThrottleEndpointAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.TestRedis;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.routing.CircuitState;
import io.github.llmthrottle.routing.CircuitStore;
import io.github.llmthrottle.store.redis.RedisCircuitStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two applications sharing one Redis server (the one {@link TestRedis} finds or starts),
 * each with the {@code llmthrottle} endpoint: both show the same pause and circuit of a
 * shared model, and who paused it. Real time: the pause and the circuit run on the Redis
 * server's clock, and each instance reads them again in the background.
 */
class SharedEndpointTests {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private final String prefix = "llm-throttle-test-" + UUID.randomUUID();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, HttpClientAutoConfiguration.class,
                RestClientAutoConfiguration.class, LlmThrottleRedisAutoConfiguration.class,
                LlmThrottleAutoConfiguration.class, LlmThrottleEndpointAutoConfiguration.class))
        .withPropertyValues("spring.data.redis.host=" + TestRedis.HOST, "spring.data.redis.port=" + TestRedis.port(),
                "llm.throttle.store=redis", "llm.throttle.redis.key-prefix=" + this.prefix,
                "management.endpoints.web.exposure.include=llmthrottle",
                "llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.models.opus.requests-per-minute=60",
                "llm.throttle.circuit.failure-threshold=2", "llm.throttle.circuit.open-wait=10m");

    @AfterEach
    void deleteKeys() {
        TestRedis.deleteKeys(this.prefix);
    }

    @Test
    void theCircuitStoreIsSharedWithTheRedisStore() {
        this.runner
            .run((context) -> assertThat(context.getBean(CircuitStore.class)).isInstanceOf(RedisCircuitStore.class));
    }

    @Test
    void theEndpointOfEveryInstanceShowsTheSamePauseAndCircuit() {
        this.runner.withPropertyValues("llm.throttle.redis.instance-id=first")
            .run((first) -> this.runner.withPropertyValues("llm.throttle.redis.instance-id=second").run((second) -> {
                ThrottledModel opus = opus(first);
                opus.getLimiter().pause(Duration.ofMinutes(5));
                opus.getCircuit().acquire().record(Outcome.OVERLOADED);
                opus.getCircuit().acquire().record(Outcome.SERVER_ERROR);
                await().atMost(PATIENCE).untilAsserted(() -> {
                    ModelStateDescriptor seenByFirst = endpoint(first).model("anthropic", "opus");
                    ModelStateDescriptor seenBySecond = endpoint(second).model("anthropic", "opus");
                    assertThat(seenBySecond.pausedBy()).isEqualTo("first");
                    assertThat(seenByFirst.pausedBy()).isEqualTo("first");
                    assertThat(seenBySecond.pausedUntil()).isNotNull().isEqualTo(seenByFirst.pausedUntil());
                    assertThat(seenBySecond.pausedAt()).isNotNull()
                        .isEqualTo(seenByFirst.pausedAt())
                        .isBefore(seenBySecond.pausedUntil());
                    assertThat(Duration.between(seenBySecond.pausedAt(), seenBySecond.pausedUntil()))
                        .isEqualTo(Duration.ofMinutes(5));
                    assertThat(seenBySecond.circuit()).isEqualTo(CircuitState.OPEN);
                    assertThat(seenByFirst.circuit()).isEqualTo(CircuitState.OPEN);
                });
                // the second instance never called the model, and refuses it all the
                // same
                assertThat(opus(second).getCircuit().isCallPermitted()).isFalse();
            }));
    }

    private static ThrottledModel opus(AssertableApplicationContext context) {
        return context.getBean(LlmThrottleRegistry.class).getClient("anthropic").model("opus");
    }

    private static LlmThrottleEndpoint endpoint(AssertableApplicationContext context) {
        return context.getBean(LlmThrottleEndpoint.class);
    }

}
