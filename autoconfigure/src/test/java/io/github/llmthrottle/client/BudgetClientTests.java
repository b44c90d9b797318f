package io.github.llmthrottle.client;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.BudgetExceededException;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.actuate.BudgetDescriptor;
import io.github.llmthrottle.actuate.LlmThrottleEndpoint;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.autoconfigure.LlmThrottleEndpointAutoConfiguration;
import io.github.llmthrottle.autoconfigure.LlmThrottleMetricsAutoConfiguration;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.LlmSimulatorExtension;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Prices and budgets in money through the throttled {@code RestClient}, against the
 * simulator (which reports usage), on a fake clock: settled usage becomes cost (totals,
 * {@code llm.cost}), a call whose estimated cost no longer fits the day's budget fails
 * without reaching the provider, the endpoint lists the budget, and spending starts again
 * at midnight UTC.
 */
class BudgetClientTests {

    private static final String MODEL = "claude-sonnet-4-5";

    @RegisterExtension
    static final LlmSimulatorExtension simulator = LlmSimulatorExtension
        .of(LlmSimulator.builder().model(MODEL, ModelLimits.of(1000, 1_000_000, 100_000)).noLatency().outputTokens(10));

    private final FakeClock clock = FakeClock.at("2026-03-31T23:00:00Z");

    private ApplicationContextRunner runner() {
        String model = "llm.throttle.clients.anthropic.models." + MODEL + ".";
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    RestClientAutoConfiguration.class, LlmThrottleAutoConfiguration.class,
                    LlmThrottleMetricsAutoConfiguration.class, LlmThrottleEndpointAutoConfiguration.class))
            .withBean(TimeSource.class, () -> this.clock)
            .withBean(SimpleMeterRegistry.class)
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + simulator.baseUrl(),
                    "management.endpoints.web.exposure.include=llmthrottle", "llm.throttle.slow-start.enabled=false",
                    model + "price.input=3", model + "price.output=15", model + "budget-per-day=0.002");
    }

    @Test
    void settledUsageBecomesCostAndTheDaysBudgetFailsCallsFastUntilMidnightUtc() {
        runner().run((context) -> {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            BudgetExceededException failure = null;
            int succeeded = 0;
            long attempts = 0;
            while (failure == null && succeeded < 50) {
                attempts = simulator.simulator().stats(MODEL).attempts();
                try {
                    call(client);
                    succeeded++;
                }
                catch (BudgetExceededException ex) {
                    failure = ex;
                }
            }
            assertThat(failure).isNotNull();
            assertThat(failure.getRejectionReason()).isEqualTo(RejectionReason.BUDGET);
            assertThat(failure.getRetryAfter()).isEqualTo(Duration.ofHours(1));
            assertThat(simulator.simulator().stats(MODEL).attempts()).isEqualTo(attempts);
            assertThat(succeeded).isBetween(2, 20);
            ModelTotals totals = context.getBean(LlmThrottleRegistry.class)
                .getClient("anthropic")
                .model(MODEL)
                .getTotals();
            ModelTotals.Snapshot snapshot = totals.snapshot();
            BigDecimal expected = BigDecimal.valueOf(snapshot.inputTokens() * 3 + snapshot.outputTokens() * 15)
                .movePointLeft(6);
            assertThat(snapshot.outputTokens()).isEqualTo(10L * succeeded);
            assertThat(totals.cost()).isEqualByComparingTo(expected);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("llm.cost")
                .tags("client", "anthropic", "model", MODEL, "currency", "USD")
                .counter()
                .count()).isCloseTo(expected.doubleValue(), org.assertj.core.data.Offset.offset(1e-9));
            assertThat(meters.get("llm.budget.limit").tags("scope", "model", "window", "day").gauge().value())
                .isEqualTo(0.002);
            LlmThrottleEndpoint endpoint = context.getBean(LlmThrottleEndpoint.class);
            List<BudgetDescriptor> budgets = endpoint.clients(SecurityContext.NONE).budgets();
            assertThat(budgets).singleElement().satisfies((budget) -> {
                // every call settled at its cost (in millionths, rounded up)
                assertThat(budget.spent()).isEqualByComparingTo(expected);
                assertThat(budget.limit()).isEqualByComparingTo("0.002");
                assertThat(budget.remaining()).isEqualByComparingTo(new BigDecimal("0.002").subtract(expected));
                assertThat(budget.currency()).isEqualTo("USD");
            });
            assertThat(endpoint.model("anthropic", MODEL).totals().cost()).isEqualByComparingTo(expected);
            this.clock.advance(Duration.ofHours(1));
            call(client);
            assertThat(endpoint.clients(SecurityContext.NONE).budgets().get(0).spent()).isPositive()
                .isLessThan(expected);
        });
    }

    @Test
    void aModelWithAPriceAndNoBudgetIsPricedButNeverRefused() {
        runner().withPropertyValues("llm.throttle.clients.anthropic.models." + MODEL + ".budget-per-day=")
            .run((context) -> {
                RestClient client = context.getBean("anthropicRestClient", RestClient.class);
                for (int i = 0; i < 30; i++) {
                    call(client);
                }
                ModelTotals totals = context.getBean(LlmThrottleRegistry.class)
                    .getClient("anthropic")
                    .model(MODEL)
                    .getTotals();
                assertThat(totals.cost()).isGreaterThan(new BigDecimal("0.002"));
                assertThat(context.getBean(LlmThrottleEndpoint.class).clients(SecurityContext.NONE).budgets())
                    .isEmpty();
            });
    }

    private static void call(RestClient client) {
        client.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body(Map.of("model", MODEL, "max_tokens", 20, "messages",
                    List.of(Map.of("role", "user", "content", "Count to three, please."))))
            .retrieve()
            .body(String.class);
    }

}
