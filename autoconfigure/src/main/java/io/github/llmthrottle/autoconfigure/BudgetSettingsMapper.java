package io.github.llmthrottle.autoconfigure;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.llmthrottle.InvalidThrottleConfigurationException;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties.Tenants;
import io.github.llmthrottle.budget.Budget;
import io.github.llmthrottle.budget.BudgetSettings;
import io.github.llmthrottle.budget.BudgetSettings.ClientBudgets;
import io.github.llmthrottle.budget.ModelPrice;
import org.jspecify.annotations.Nullable;

/**
 * Maps the prices ({@code models.MODEL.price.*}), the budgets in money
 * ({@code budget-per-day}, {@code budget-per-month} of models, clients and tenants), the
 * currency and the warning share of {@link LlmThrottleProperties}, once, into
 * {@link BudgetSettings}. A negative price, a price without its input or output, a budget
 * that is not positive, and a budget that no priced model could ever count against (a
 * model without a price, {@code default-limits}, or a client or tenant when no model has
 * a price, a deployment) fail with an {@link InvalidThrottleConfigurationException}
 * naming the property.
 */
final class BudgetSettingsMapper {

    private BudgetSettingsMapper() {
    }

    static BudgetSettings map(LlmThrottleProperties properties) {
        String currency = SettingsValidation.check("currency", properties.getCurrency(), (value) -> !value.isBlank(),
                "must not be blank", "Set the currency of the prices and budgets, such as USD or EUR.");
        double share = SettingsValidation.check("budget-warning-share", properties.getBudgetWarningShare(),
                (value) -> value > 0 && value <= 1, "must be above 0 and at most 1",
                "Set the share of a budget spent beyond which its models are tried last, such as 0.9.");
        Map<String, ClientBudgets> clients = new LinkedHashMap<>();
        boolean anyPrice = false;
        for (Map.Entry<String, ClientProperties> entry : properties.getClients().entrySet()) {
            String prefix = "clients." + entry.getKey() + ".";
            ClientProperties client = entry.getValue();
            Map<String, ModelPrice> prices = new LinkedHashMap<>();
            Map<String, Budget> models = new LinkedHashMap<>();
            client.getModels().forEach((name, model) -> {
                String modelPrefix = prefix + "models." + name + ".";
                ModelPrice price = price(modelPrefix + "price.", model.getPrice());
                Budget budget = budget(modelPrefix, model);
                model.getDeployments().forEach((deployment, limits) -> {
                    String deploymentPrefix = modelPrefix + "deployments." + deployment + ".";
                    requireNone(deploymentPrefix, budget(deploymentPrefix, limits), "is not applied to a deployment",
                            "A deployment's calls count against its model's budget: set the budget on the model.");
                });
                if (price != null) {
                    prices.put(name, price);
                }
                else {
                    requireNone(modelPrefix, budget,
                            "model '" + name + "' has no price, so its calls cost nothing that a budget could count",
                            "Set " + SettingsValidation.PREFIX + modelPrefix + "price.input and .output, or remove "
                                    + "the budget.");
                }
                models.put(name, budget);
            });
            requireNone(prefix + "default-limits.", budget(prefix + "default-limits.", client.getDefaultLimits()),
                    "models not listed under models have no price, so a budget of theirs could count nothing",
                    "List the model under models with its price and budget, or remove the budget.");
            Budget clientBudget = budget(prefix, client);
            if (prices.isEmpty()) {
                requireNone(prefix, clientBudget, "no model of client '" + entry.getKey() + "' has a price",
                        "Set price.input and price.output of its models, or remove the budget.");
            }
            anyPrice |= !prices.isEmpty();
            clients.put(entry.getKey(), new ClientBudgets(clientBudget, Budget.NONE, models, prices));
        }
        Tenants tenants = properties.getTenants();
        Budget defaultTenant = budget("tenants.default.", tenants.getDefault());
        Map<String, Budget> overrides = new LinkedHashMap<>();
        for (Map.Entry<String, LlmThrottleProperties.TenantOverride> entry : tenants.getOverrides().entrySet()) {
            String prefix = "tenants.overrides." + entry.getKey() + ".";
            Budget own = budget(prefix, entry.getValue());
            if (!anyPrice) {
                requireNone(prefix, own, "no model has a price", "Set the prices of the models, or remove the budget.");
            }
            overrides.put(entry.getKey(), defaultTenant.overriddenBy(own));
        }
        if (!anyPrice) {
            requireNone("tenants.default.", defaultTenant, "no model has a price",
                    "Set the prices of the models, or remove the budget.");
        }
        return new BudgetSettings(currency, share, clients, defaultTenant, overrides);
    }

    private static @Nullable ModelPrice price(String prefix, ModelPriceProperties price) {
        BigDecimal input = nonNegative(prefix + "input", price.getInput());
        BigDecimal output = nonNegative(prefix + "output", price.getOutput());
        BigDecimal cacheWrite = nonNegative(prefix + "cache-write", price.getCacheWrite());
        BigDecimal cacheRead = nonNegative(prefix + "cache-read", price.getCacheRead());
        if (input == null && output == null && cacheWrite == null && cacheRead == null) {
            return null;
        }
        if (input == null || output == null) {
            throw SettingsValidation.invalid((input != null) ? prefix + "output" : prefix + "input", null,
                    "is missing while other prices of the model are set",
                    "Set both input and output, per million tokens, or remove the model's prices.");
        }
        return new ModelPrice(input, output, (cacheWrite != null) ? cacheWrite : input,
                (cacheRead != null) ? cacheRead : input);
    }

    private static @Nullable BigDecimal nonNegative(String property, @Nullable BigDecimal price) {
        if (price != null && price.signum() < 0) {
            throw SettingsValidation.invalid(property, price.toPlainString(), "must not be negative",
                    "Use the provider's price per million tokens, 0 or more.");
        }
        return price;
    }

    private static Budget budget(String prefix, TokenQuotaProperties properties) {
        return new Budget(positive(prefix + "budget-per-day", properties.getBudgetPerDay()),
                positive(prefix + "budget-per-month", properties.getBudgetPerMonth()));
    }

    private static @Nullable BigDecimal positive(String property, @Nullable BigDecimal amount) {
        if (amount != null && amount.signum() <= 0) {
            throw SettingsValidation.invalid(property, amount.toPlainString(), "must be positive",
                    "Use an amount above 0 in llm.throttle.currency, or remove the property for no budget.");
        }
        return amount;
    }

    /** Refuses a budget that could never count anything. */
    private static void requireNone(String prefix, Budget budget, String reason, String action) {
        if (budget.perDay() != null) {
            throw SettingsValidation.invalid(prefix + "budget-per-day", budget.perDay().toPlainString(), reason,
                    action);
        }
        if (budget.perMonth() != null) {
            throw SettingsValidation.invalid(prefix + "budget-per-month", budget.perMonth().toPlainString(), reason,
                    action);
        }
    }

}
