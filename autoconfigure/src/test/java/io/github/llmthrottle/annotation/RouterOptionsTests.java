package io.github.llmthrottle.annotation;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Map;

import io.github.llmthrottle.FallbackOn;
import io.github.llmthrottle.InvalidThrottleConfigurationException;
import io.github.llmthrottle.ProviderRefusedException;
import io.github.llmthrottle.Routing;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.Throttled;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.routing.CostEstimator;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @Throttled(routing = ..., weights = ..., fallbackOn = ...)} against the
 * testkit's simulated Anthropic API: weighted and cheapest routing, routing around
 * provider refusals surfacing as Spring's {@code RestClient} exceptions, and the startup
 * checks of the weights.
 */
@ExtendWith(OutputCaptureExtension.class)
class RouterOptionsTests {

    private static final String OPUS = "claude-opus-4-7";

    private static final String SONNET = "claude-sonnet-4-5";

    private LlmSimulator simulator;

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        FakeClock clock = new FakeClock(Instant.parse("2026-03-02T09:00:00Z")).advancingWaits();
        this.simulator = LlmSimulator.builder().noLatency().clock(clock).start();
        this.runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    RestClientAutoConfiguration.class, LlmThrottleAutoConfiguration.class))
            .withBean(TimeSource.class, () -> clock)
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + this.simulator.baseUrl(),
                    "llm.throttle.clients.anthropic.api-key=test-key",
                    "llm.throttle.clients.anthropic.default-model=" + OPUS,
                    "llm.throttle.clients.anthropic.models." + OPUS + ".requests-per-minute=1000",
                    "llm.throttle.clients.anthropic.models." + SONNET + ".requests-per-minute=1000",
                    "llm.throttle.retry.max-retries=0");
    }

    @AfterEach
    void stop() {
        this.simulator.close();
    }

    @Test
    void weightedRoutingSplitsFirstAttemptsSeventyThirty() {
        this.runner.withUserConfiguration(RoutedConfiguration.class).run((context) -> {
            Routed routed = context.getBean(Routed.class);
            for (int i = 0; i < 100; i++) {
                routed.weighted();
            }
            assertThat(this.simulator.stats(OPUS).successes()).isEqualTo(70);
            assertThat(this.simulator.stats(SONNET).successes()).isEqualTo(30);
        });
    }

    @Test
    void aPromptTooLongIsRoutedToTheNextModelWhenListed() {
        this.simulator.script(OPUS, Fault.status(400).message("prompt is too long: 215000 tokens > 200000 maximum"));
        this.runner.withUserConfiguration(RoutedConfiguration.class).run((context) -> {
            assertThat(context.getBean(Routed.class).onContextLength()).isEqualTo(SONNET);
            assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(1);
        });
    }

    @Test
    void aRefusalThatIsNotListedPropagates() {
        this.simulator.script(OPUS, Fault.status(400).message("prompt is too long: 215000 tokens > 200000 maximum"));
        this.runner.withUserConfiguration(RoutedConfiguration.class)
            .run((context) -> assertThatExceptionOfType(HttpClientErrorException.BadRequest.class)
                .isThrownBy(() -> context.getBean(Routed.class).onQuota()));
        assertThat(this.simulator.stats(SONNET).attempts()).isZero();
    }

    @Test
    void aQuotaErrorIsRoutedToTheNextModelWhenListedAndTheFallbackMethodGetsTheRefusal() {
        this.simulator.script(OPUS, Fault.quotaExceeded());
        this.simulator.script(SONNET, Fault.quotaExceeded());
        this.runner.withUserConfiguration(RoutedConfiguration.class).run((context) -> {
            assertThat(context.getBean(Routed.class).onQuota()).isEqualTo("cache:QUOTA");
            assertThat(this.simulator.stats(SONNET).attempts()).isEqualTo(1);
        });
    }

    @Test
    void cheapestRoutingTriesTheCheapestModelFirst() {
        Map<String, BigDecimal> prices = Map.of(OPUS, new BigDecimal("15"), SONNET, new BigDecimal("3"));
        CostEstimator costs = (client, model, input, output) -> prices.get(model);
        this.runner.withBean(CostEstimator.class, () -> costs)
            .withUserConfiguration(RoutedConfiguration.class)
            .run((context) -> assertThat(context.getBean(Routed.class).cheapest()).isEqualTo(SONNET));
    }

    @Test
    void cheapestRoutingComparesTheConfiguredPrices(CapturedOutput output) {
        this.runner
            .withPropertyValues("llm.throttle.clients.anthropic.models." + OPUS + ".price.input=15",
                    "llm.throttle.clients.anthropic.models." + OPUS + ".price.output=75",
                    "llm.throttle.clients.anthropic.models." + SONNET + ".price.input=3",
                    "llm.throttle.clients.anthropic.models." + SONNET + ".price.output=15")
            .withUserConfiguration(RoutedConfiguration.class)
            .run((context) -> {
                assertThat(context.getBean(Routed.class).cheapest()).isEqualTo(SONNET);
                assertThat(output).doesNotContain("routes to the cheapest model, but none");
            });
    }

    @Test
    void cheapestRoutingWithoutPricesRoutesInOrderAndWarns(CapturedOutput output) {
        this.runner.withUserConfiguration(RoutedConfiguration.class).run((context) -> {
            assertThat(context.getBean(Routed.class).cheapest()).isEqualTo(OPUS);
            assertThat(output).contains(Routed.class.getName() + ".cheapest() routes to the cheapest model, but none");
        });
    }

    @Test
    void weightsThatDoNotMatchTheModelsStopTheApplicationNamingTheMethod() {
        this.runner.withBean(WrongWeights.class).run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidThrottleConfigurationException.class)
                .hasMessageStartingWith(WrongWeights.class.getName() + ".answer(): ")
                .hasMessageContaining("has 3 weights [50, 30, 20] for 2 models");
        });
        this.runner.withBean(NegativeWeight.class)
            .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                .hasMessageStartingWith(NegativeWeight.class.getName() + ".answer(): ")
                .hasMessageContaining("must not be negative"));
        this.runner.withBean(WeightsWithoutWeightedRouting.class)
            .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                .hasMessageContaining("weights [1, 1] are set, but routing is ORDERED"));
    }

    @Configuration(proxyBeanMethods = false)
    static class RoutedConfiguration {

        @Bean
        Routed routed(@Qualifier("anthropicRestClient") RestClient restClient) {
            return new Routed(restClient);
        }

    }

    /** Routed methods that call the throttled RestClient for their model. */
    static class Routed {

        private final RestClient restClient;

        Routed(RestClient restClient) {
            this.restClient = restClient;
        }

        @Throttled(model = OPUS, fallback = SONNET, routing = Routing.WEIGHTED, weights = { 70, 30 })
        public String weighted() {
            return call();
        }

        @Throttled(model = OPUS, fallback = SONNET, fallbackOn = FallbackOn.CONTEXT_LENGTH)
        public String onContextLength() {
            return call();
        }

        @Throttled(model = OPUS, fallback = SONNET, fallbackOn = FallbackOn.QUOTA, fallbackMethod = "cached")
        public String onQuota() {
            return call();
        }

        @Throttled(model = OPUS, fallback = SONNET, routing = Routing.CHEAPEST)
        public String cheapest() {
            return call();
        }

        String cached(Throwable cause) {
            return "cache:" + ((ProviderRefusedException) cause).getRefusal();
        }

        private String call() {
            String model = ThrottleContext.currentModel();
            ThrottledRoutingTests.call(this.restClient, model);
            return model;
        }

    }

    static class WrongWeights {

        @Throttled(model = OPUS, fallback = SONNET, routing = Routing.WEIGHTED, weights = { 50, 30, 20 })
        public String answer() {
            return "";
        }

    }

    static class NegativeWeight {

        @Throttled(model = OPUS, fallback = SONNET, routing = Routing.WEIGHTED, weights = { 1, -1 })
        public String answer() {
            return "";
        }

    }

    static class WeightsWithoutWeightedRouting {

        @Throttled(model = OPUS, fallback = SONNET, weights = { 1, 1 })
        public String answer() {
            return "";
        }

    }

}
