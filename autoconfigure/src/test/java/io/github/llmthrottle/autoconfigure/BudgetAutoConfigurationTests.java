package io.github.llmthrottle.autoconfigure;

import java.math.BigDecimal;

import io.github.llmthrottle.InvalidThrottleConfigurationException;
import io.github.llmthrottle.budget.BudgetSettings;
import io.github.llmthrottle.budget.Budgets;
import io.github.llmthrottle.budget.ModelPrice;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The prices and budgets in money as {@link LlmThrottleAutoConfiguration} maps them from
 * properties, and the properties it refuses at startup, naming them.
 */
class BudgetAutoConfigurationTests {

    private static final String SONNET = "llm.throttle.clients.anthropic.models.sonnet.";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                LlmThrottleAutoConfiguration.class))
        .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.models.opus.requests-per-minute=50");

    @Test
    void withoutPricesNothingIsCountedAndTheCurrencyIsUsd() {
        this.runner.run((context) -> {
            Budgets budgets = context.getBean(Budgets.class);
            assertThat(budgets.isEmpty()).isTrue();
            assertThat(budgets.settings().currency()).isEqualTo("USD");
            assertThat(budgets.settings().warningShare()).isEqualTo(BudgetSettings.DEFAULT_WARNING_SHARE);
            assertThat(context.getBean(LlmThrottleRegistry.class).getBudgets()).isSameAs(budgets);
        });
    }

    @Test
    void pricesBudgetsCurrencyAndWarningShareAreMapped() {
        this.runner
            .withPropertyValues("llm.throttle.currency=EUR", "llm.throttle.budget-warning-share=0.75",
                    SONNET + "price.input=3", SONNET + "price.output=15", SONNET + "price.cache-read=0.30",
                    SONNET + "budget-per-day=20", "llm.throttle.clients.anthropic.budget-per-month=300",
                    "llm.throttle.tenants.default.budget-per-day=1",
                    "llm.throttle.tenants.overrides.acme.budget-per-month=50")
            .run((context) -> {
                BudgetSettings settings = context.getBean(Budgets.class).settings();
                assertThat(settings.currency()).isEqualTo("EUR");
                assertThat(settings.warningShare()).isEqualTo(0.75);
                ModelPrice price = settings.price("anthropic", "sonnet");
                assertThat(price).isNotNull();
                assertThat(price.input()).isEqualByComparingTo("3");
                assertThat(price.cacheRead()).isEqualByComparingTo("0.30");
                // an unset cache-write price is the input price
                assertThat(price.cacheWrite()).isEqualByComparingTo("3");
                assertThat(settings.price("anthropic", "opus")).isNull();
                assertThat(settings.model("anthropic", "sonnet").perDay()).isEqualByComparingTo("20");
                assertThat(settings.client("anthropic").perMonth()).isEqualByComparingTo("300");
                // an override inherits what it leaves unset from the default
                assertThat(settings.tenant("acme").perDay()).isEqualByComparingTo(BigDecimal.ONE);
                assertThat(settings.tenant("acme").perMonth()).isEqualByComparingTo("50");
                assertThat(context.getBean(Budgets.class).isEmpty()).isFalse();
            });
    }

    @Test
    void aNegativePriceFailsNamingTheProperty() {
        assertFailure("clients.anthropic.models.sonnet.price.output", "must not be negative", SONNET + "price.input=3",
                SONNET + "price.output=-15");
    }

    @Test
    void aPriceWithoutItsOutputFailsNamingTheMissingProperty() {
        assertFailure("clients.anthropic.models.sonnet.price.output", "is missing", SONNET + "price.input=3");
    }

    @Test
    void aBudgetOnAModelWithoutPriceFailsSayingWhich() {
        assertFailure("clients.anthropic.models.opus.budget-per-day", "model 'opus' has no price",
                "llm.throttle.clients.anthropic.models.opus.budget-per-day=5");
    }

    @Test
    void aClientOrTenantBudgetWithoutAnyPriceFails() {
        assertFailure("clients.anthropic.budget-per-month", "no model of client 'anthropic' has a price",
                "llm.throttle.clients.anthropic.budget-per-month=5");
        assertFailure("tenants.overrides.acme.budget-per-day", "no model has a price",
                "llm.throttle.tenants.overrides.acme.budget-per-day=5");
    }

    @Test
    void aBudgetOnADeploymentFails() {
        assertFailure("clients.anthropic.models.sonnet.deployments.eu.budget-per-day", "is not applied to a deployment",
                SONNET + "price.input=3", SONNET + "price.output=15",
                SONNET + "deployments.eu.base-url=https://eu.example.com", SONNET + "deployments.eu.budget-per-day=5");
    }

    @Test
    void aBudgetThatIsNotPositiveAndABadWarningShareFail() {
        assertFailure("clients.anthropic.models.sonnet.budget-per-day", "must be positive", SONNET + "price.input=3",
                SONNET + "price.output=15", SONNET + "budget-per-day=0");
        assertFailure("budget-warning-share", "at most 1", "llm.throttle.budget-warning-share=1.5");
    }

    private void assertFailure(String property, String reason, String... properties) {
        this.runner.withPropertyValues(properties).run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidThrottleConfigurationException.class)
                .hasMessageContaining("llm.throttle." + property)
                .hasMessageContaining(reason);
        });
    }

}
