package io.github.llmthrottle.client;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.Throttled;
import io.github.llmthrottle.actuate.CircuitStateSource;
import io.github.llmthrottle.actuate.LlmThrottleEndpoint;
import io.github.llmthrottle.actuate.LlmThrottleEndpoint.ModelStateDescriptor;
import io.github.llmthrottle.actuate.LlmThrottleHealthIndicator;
import io.github.llmthrottle.actuate.ModelHealthState;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.autoconfigure.LlmThrottleHealthAutoConfiguration;
import io.github.llmthrottle.autoconfigure.LlmThrottleMetricsAutoConfiguration;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.routing.CircuitState;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.time.NoonTimeSource;
import io.github.llmthrottle.time.TimeSource;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
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
 * A model served by two deployments, each a simulated provider of its own that accepts
 * only its own API key: {@code east} (the client's base URL and key, 2 requests per
 * minute) and {@code west} (another base URL and key, 100 requests per minute). A call
 * goes to the deployment that admits it soonest; an overloaded, rate-limited or open
 * deployment hands its calls to the other; each deployment has its own state on the
 * endpoint and its own meters.
 */
class DeploymentsTests {

    private static final String SONNET = "claude-sonnet-4-5";

    private static final String EAST = SONNET + "@east";

    private static final String WEST = SONNET + "@west";

    private LlmSimulator east;

    private LlmSimulator west;

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        // a wall clock at noon of a fixed day for all: no quota's day ends during a test
        NoonTimeSource time = new NoonTimeSource();
        this.east = LlmSimulator.builder().clock(time.clock()).noLatency().apiKeys("east-key").start();
        this.west = LlmSimulator.builder()
            .clock(time.clock())
            .noLatency()
            .apiKeys("west-key")
            .model(SONNET, ModelLimits.of(1000, 1_000_000, 100_000))
            .start();
        String deployments = "llm.throttle.clients.anthropic.models." + SONNET + ".deployments.";
        this.runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                            LlmThrottleAutoConfiguration.class, MetricsAutoConfiguration.class,
                            SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                            LlmThrottleMetricsAutoConfiguration.class, LlmThrottleHealthAutoConfiguration.class))
            .withUserConfiguration(ObserverConfiguration.class)
            .withBean(TimeSource.class, () -> time)
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + this.east.baseUrl(),
                    "llm.throttle.clients.anthropic.api-key=east-key",
                    "llm.throttle.clients.anthropic.default-model=" + SONNET,
                    "llm.throttle.clients.anthropic.models." + SONNET + ".requests-per-minute=100",
                    "llm.throttle.clients.anthropic.models." + SONNET + ".input-tokens-per-minute=50000",
                    deployments + "east.requests-per-minute=2", deployments + "west.base-url=" + this.west.baseUrl(),
                    deployments + "west.api-key=west-key", "llm.throttle.queue.max-wait=1s",
                    "llm.throttle.retry.max-retries=1", "llm.throttle.retry.delay=1ms",
                    "llm.throttle.retry.max-delay=5ms", "llm.throttle.retry.jitter=none",
                    "llm.throttle.circuit.failure-threshold=2", "llm.throttle.circuit.open-wait=10m");
    }

    @AfterEach
    void stop() {
        this.east.close();
        this.west.close();
    }

    @Test
    void aCallGoesToTheDeploymentThatAdmitsItSoonest() {
        this.runner.run((context) -> {
            RestClient restClient = restClient(context);
            // both admit at once: configuration order; then east's two requests a minute
            // are spent, and west admits at once
            for (int i = 0; i < 4; i++) {
                assertThat(call(restClient)).contains("\"type\":\"message\"");
            }
            assertThat(this.east.stats(SONNET).successes()).isEqualTo(2);
            assertThat(this.west.stats(SONNET).successes()).isEqualTo(2);
            assertThat(observer(context).attempts).containsExactly(EAST + ":SUCCESS", EAST + ":SUCCESS",
                    WEST + ":SUCCESS", WEST + ":SUCCESS");
            ThrottledClient client = client(context);
            assertThat(client.model(SONNET).getTotals().snapshot().calls()).isEqualTo(4);
            assertThat(client.model(SONNET).getTotals().snapshot().succeeded()).isEqualTo(4);
            assertThat(client.model(EAST).getTotals().snapshot().attempts()).isEqualTo(2);
            assertThat(client.model(WEST).getTotals().snapshot().attempts()).isEqualTo(2);
            assertThat(client.model(WEST).getTotals().snapshot().inputTokens()).isPositive();
        });
    }

    @Test
    void aRequestNamingADeploymentIsACallOfItsModelRoutedAsAnyOther() {
        this.runner.run((context) -> {
            String body = "{\"model\":\"" + WEST
                    + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
            restClient(context).post()
                .uri("/v1/messages")
                .contentType(MediaType.APPLICATION_JSON)
                .body(body)
                .retrieve()
                .body(String.class);
            // the model's call, sent to the deployment that admits it soonest (east, by
            // configuration order), not an attempt on west's limiter sent to east
            assertThat(client(context).model(SONNET).getTotals().snapshot().calls()).isEqualTo(1);
            assertThat(observer(context).attempts).containsExactly(EAST + ":SUCCESS");
        });
    }

    @Test
    void aDeploymentThatCannotAdmitTheCallHandsItToTheOther() throws IOException {
        this.runner
            .withPropertyValues(
                    "llm.throttle.clients.anthropic.models." + SONNET + ".deployments.east.max-concurrency=1",
                    "llm.throttle.queue.max-wait=200ms")
            .run((context) -> {
                RestClient restClient = restClient(context);
                // a stream left open holds east's only concurrency slot
                InputStream held = restClient.post()
                    .uri("/v1/messages")
                    .contentType(MediaType.APPLICATION_JSON)
                    .body("{\"model\":\"" + SONNET + "\",\"max_tokens\":16,\"stream\":true,"
                            + "\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}")
                    .exchange((request, response) -> response.getBody(), false);
                try (held) {
                    // east's buckets would admit at once, so it comes first; its slot
                    // does not come back within max-wait, and west takes the call
                    assertThat(call(restClient)).contains("\"type\":\"message\"");
                    assertThat(this.east.stats(SONNET).attempts()).isEqualTo(1);
                    assertThat(this.west.stats(SONNET).successes()).isEqualTo(1);
                    // the stream's attempt is reported when it ends
                    assertThat(observer(context).attempts).containsExactly(WEST + ":SUCCESS");
                }
            });
    }

    @Test
    void eachDeploymentHasItsOwnLimitsInheritingTheModelsForWhatItLeavesUnset() {
        this.runner.run((context) -> {
            ThrottledClient client = client(context);
            assertThat(client.model(EAST).getLimiter().limits().requestsPerMinute()).isEqualTo(2);
            assertThat(client.model(EAST).getLimiter().limits().inputTokensPerMinute()).isEqualTo(50_000);
            assertThat(client.model(WEST).getLimiter().limits().requestsPerMinute()).isEqualTo(100);
            assertThat(client.model(SONNET).getDeployments()).extracting(ThrottledModel::getName)
                .containsExactly(EAST, WEST);
            assertThat(client.model(WEST).getDeploymentOf()).isEqualTo(SONNET);
        });
    }

    @Test
    void anOverloadedDeploymentHandsTheAttemptToTheOtherAtOnce() {
        this.east.outage(SONNET, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            RestClient restClient = restClient(context);
            assertThat(call(restClient)).contains("\"type\":\"message\"");
            assertThat(this.east.stats(SONNET).attempts()).isEqualTo(1);
            assertThat(this.west.stats(SONNET).successes()).isEqualTo(1);
            assertThat(observer(context).attempts).containsExactly(EAST + ":OVERLOADED", WEST + ":SUCCESS");
            assertThat(observer(context).retries).isEmpty();
            // the next call tries east again (it failed in another call), and its second
            // failure in a row opens its circuit
            assertThat(call(restClient)).contains("\"type\":\"message\"");
            assertThat(client(context).model(EAST).getCircuit().state()).isEqualTo(CircuitState.OPEN);
            // while east is open, calls go to west without trying east
            assertThat(call(restClient)).contains("\"type\":\"message\"");
            assertThat(this.east.stats(SONNET).attempts()).isEqualTo(2);
            assertThat(this.west.stats(SONNET).successes()).isEqualTo(3);
        });
    }

    @Test
    void aRateLimitedDeploymentIsPausedAndTheOtherTakesItsCalls() {
        this.east.script(SONNET, Fault.status(429).retryAfter("30"));
        this.runner.run((context) -> {
            RestClient restClient = restClient(context);
            assertThat(call(restClient)).contains("\"type\":\"message\"");
            assertThat(call(restClient)).contains("\"type\":\"message\"");
            // east was asked once, answered 429 with 30 s to wait, and is paused: both
            // calls were answered by west, the first at once after the 429
            assertThat(this.east.stats(SONNET).attempts()).isEqualTo(1);
            assertThat(this.west.stats(SONNET).successes()).isEqualTo(2);
            assertThat(client(context).model(EAST).getLimiter().state().pausedUntil()).isNotNull();
            assertThat(client(context).model(WEST).getLimiter().state().pausedUntil()).isNull();
        });
    }

    @Test
    void whenEveryDeploymentFailsTheRetryEngineBacksOffAndTriesThemAllAgain() {
        this.east.outage(SONNET, Duration.ofMinutes(10));
        this.west.outage(SONNET, Duration.ofMinutes(10));
        this.runner.withPropertyValues("llm.throttle.circuit.failure-threshold=10").run((context) -> {
            assertThatExceptionOfType(RetriesExhaustedException.class).isThrownBy(() -> call(restClient(context)))
                .satisfies((ex) -> assertThat(ex.getModel()).isEqualTo(SONNET));
            assertThat(this.east.stats(SONNET).attempts()).isEqualTo(2);
            assertThat(this.west.stats(SONNET).attempts()).isEqualTo(2);
            assertThat(observer(context).retries).containsExactly(SONNET);
        });
    }

    @Test
    void whenEveryDeploymentsCircuitIsOpenTheModelFailsFast() {
        this.east.outage(SONNET, Duration.ofMinutes(10));
        this.west.outage(SONNET, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            RestClient restClient = restClient(context);
            assertThatExceptionOfType(RetriesExhaustedException.class).isThrownBy(() -> call(restClient));
            assertThatExceptionOfType(CircuitOpenException.class).isThrownBy(() -> call(restClient)).satisfies((ex) -> {
                assertThat(ex.getModel()).isEqualTo(SONNET);
                assertThat(ex.getRetryAfter()).isPositive();
            });
            assertThat(this.east.stats(SONNET).attempts()).isEqualTo(2);
            assertThat(this.west.stats(SONNET).attempts()).isEqualTo(2);
        });
    }

    @Test
    void throttledRoutesToTheFallbackOnlyWhenNoDeploymentCanTakeTheCall() {
        this.east.outage(SONNET, Duration.ofMinutes(10));
        this.runner.withPropertyValues("llm.throttle.clients.anthropic.models.claude-haiku-4-5.requests-per-minute=100")
            .withUserConfiguration(AnswersConfiguration.class)
            .run((context) -> {
                Answers answers = context.getBean(Answers.class);
                assertThat(answers.answer()).isEqualTo(SONNET);
                assertThat(answers.answer()).isEqualTo(SONNET);
                this.west.outage(SONNET, Duration.ofMinutes(10));
                // west's failures open its circuit too; then sonnet is skipped
                assertThat(answers.answer()).isEqualTo("claude-haiku-4-5");
                assertThat(answers.answer()).isEqualTo("claude-haiku-4-5");
                assertThat(this.west.stats(SONNET).attempts()).isEqualTo(4);
            });
    }

    @Test
    void healthShowsEachDeployment() {
        this.east.outage(SONNET, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            call(restClient(context));
            call(restClient(context));
            Health health = context.getBean(LlmThrottleHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            @SuppressWarnings("unchecked")
            Map<String, Map<String, Object>> models = (Map<String, Map<String, Object>>) health.getDetails()
                .get("anthropic");
            assertThat(models).containsKeys(SONNET, EAST, WEST);
            assertThat(models.get(EAST)).containsEntry("circuit", CircuitState.OPEN)
                .containsEntry("state", ModelHealthState.CIRCUIT_OPEN);
            assertThat(models.get(WEST)).containsEntry("state", ModelHealthState.OK);
        });
    }

    @Test
    void theEndpointAndTheMetricsShowEachDeployment() {
        this.runner.run((context) -> {
            RestClient restClient = restClient(context);
            for (int i = 0; i < 3; i++) {
                call(restClient);
            }
            LlmThrottleEndpoint endpoint = new LlmThrottleEndpoint(context.getBean(LlmThrottleRegistry.class),
                    CircuitStateSource.DEFAULT);
            ModelStateDescriptor model = endpoint.clients(SecurityContext.NONE)
                .clients()
                .get("anthropic")
                .models()
                .get(SONNET);
            assertThat(model.deployments()).containsExactly(EAST, WEST);
            assertThat(model.totals().calls()).isEqualTo(3);
            ModelStateDescriptor west = endpoint.model("anthropic", WEST);
            assertThat(west.deploymentOf()).isEqualTo(SONNET);
            assertThat(west.limits().requestsPerMinute()).isEqualTo(100);
            assertThat(west.totals().attempts()).isEqualTo(1);
            // west's own provider reported west's own limits
            assertThat(west.server()).isNotNull();
            assertThat(west.server().requestsLimit()).isEqualTo(1000);
            assertThat(endpoint.model("anthropic", EAST).server()).isNull();
            ModelStateDescriptor east = endpoint.model("anthropic", EAST);
            assertThat(east.limits().requestsPerMinute()).isEqualTo(2);
            assertThat(east.available().requests()).isLessThan(1);
            // one deployment's limits change at runtime, and a reset restores its own
            assertThat(
                    endpoint.updateLimits("anthropic", EAST, 10L, null, null, null, null).limits().requestsPerMinute())
                .isEqualTo(10);
            assertThat(endpoint.model("anthropic", WEST).limits().requestsPerMinute()).isEqualTo(100);
            assertThat(
                    endpoint.updateLimits("anthropic", EAST, null, null, null, null, true).limits().requestsPerMinute())
                .isEqualTo(2);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("llm.requests")
                .tags("client", "anthropic", "model", WEST, "outcome", "success")
                .timer()
                .count()).isEqualTo(1);
            assertThat(meters.get("llm.requests")
                .tags("client", "anthropic", "model", EAST, "outcome", "success")
                .timer()
                .count()).isEqualTo(2);
            assertThat(meters.get("llm.inflight").tags("client", "anthropic", "model", WEST).gauge()).isNotNull();
            assertThat(meters.get("llm.calls")
                .tags("client", "anthropic", "model", SONNET, "outcome", "success")
                .timer()
                .count()).isEqualTo(3);
        });
    }

    @Test
    void theDeploymentsShareTheirModelsQuotaInTheEndpointTheHealthAndTheMetrics() {
        // the quota of the models not listed (default-limits) is not one of a
        // deployment's
        this.runner
            .withPropertyValues("llm.throttle.clients.anthropic.models." + SONNET + ".tokens-per-day=100000",
                    "llm.throttle.clients.anthropic.default-limits.tokens-per-day=5000")
            .run((context) -> {
                call(restClient(context));
                LlmThrottleEndpoint endpoint = new LlmThrottleEndpoint(context.getBean(LlmThrottleRegistry.class),
                        CircuitStateSource.DEFAULT);
                // one quota, the model's: none shown for a deployment, whose calls count
                // against the model's
                assertThat(endpoint.clients(SecurityContext.NONE).quotas()).singleElement().satisfies((quota) -> {
                    assertThat(quota.model()).isEqualTo(SONNET);
                    assertThat(quota.used()).isPositive();
                    assertThat(quota.exhausted()).isFalse();
                });
                MeterRegistry meters = context.getBean(MeterRegistry.class);
                assertThat(meters.get("llm.quota.used").gauges()).singleElement()
                    .satisfies((gauge) -> assertThat(gauge.getId().getTag("model")).isEqualTo(SONNET));
                assertThat(meters.get("llm.quota.used").gauge().value()).isPositive();
                Health health = context.getBean(LlmThrottleHealthIndicator.class).health();
                @SuppressWarnings("unchecked")
                Map<String, Map<String, Object>> models = (Map<String, Map<String, Object>>) health.getDetails()
                    .get("anthropic");
                assertThat(models.get(EAST)).containsEntry("state", ModelHealthState.OK);
            });
    }

    private static RestClient restClient(AssertableApplicationContext context) {
        return context.getBean("anthropicRestClient", RestClient.class);
    }

    private static ThrottledClient client(AssertableApplicationContext context) {
        return context.getBean(LlmThrottleRegistry.class).getClient("anthropic");
    }

    private static RecordingObserver observer(AssertableApplicationContext context) {
        return context.getBean(RecordingObserver.class);
    }

    static String call(RestClient restClient) {
        return restClient.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body("{\"model\":\"" + SONNET
                    + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}")
            .retrieve()
            .body(String.class);
    }

    static class RecordingObserver implements ThrottleObserver {

        final List<String> attempts = new CopyOnWriteArrayList<>();

        final List<String> retries = new CopyOnWriteArrayList<>();

        @Override
        public void onAttempt(String client, String model, Outcome outcome, int status, Duration duration) {
            this.attempts.add(model + ":" + outcome);
        }

        @Override
        public void onRetry(String client, String model, io.github.llmthrottle.retry.Classification classification,
                Duration wait, int retryCount) {
            this.retries.add(model);
        }

    }

    static class Answers {

        private final RestClient restClient;

        Answers(RestClient restClient) {
            this.restClient = restClient;
        }

        @Throttled(client = "anthropic", model = SONNET, fallback = "claude-haiku-4-5", priority = Priority.REALTIME)
        public String answer() {
            String model = ThrottleContext.currentModel();
            this.restClient.post()
                .uri("/v1/messages")
                .contentType(MediaType.APPLICATION_JSON)
                .body("{\"model\":\"" + model
                        + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}")
                .retrieve()
                .body(String.class);
            return model;
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class ObserverConfiguration {

        @Bean
        RecordingObserver recordingObserver() {
            return new RecordingObserver();
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class AnswersConfiguration {

        @Bean
        Answers answers(@Qualifier("anthropicRestClient") RestClient restClient) {
            return new Answers(restClient);
        }

    }

}
