package io.github.llmthrottle.budget;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The prices and the budgets in money of every client, model and tenant ({@code price.*},
 * {@code budget-per-day} and {@code budget-per-month} under
 * {@code llm.throttle.clients.NAME}, its {@code models.MODEL} and {@code default-limits},
 * and {@code llm.throttle.tenants}). A call counts against every budget that applies to
 * it: its model's, its client's (all models of the client together) and its tenant's (all
 * clients and models together); only a call to a model with a price counts.
 *
 * @param currency the currency of every price and budget ({@code llm.throttle.currency})
 * @param warningShare the share of a budget spent beyond which its models are tried after
 * the others ({@code llm.throttle.budget-warning-share})
 * @param clients the prices and budgets of each client by name
 * @param defaultTenant the budget of every tenant without an override
 * @param tenantOverrides the budgets by tenant id, already merged with the default
 */
public record BudgetSettings(String currency, double warningShare, Map<String, ClientBudgets> clients,
        Budget defaultTenant, Map<String, Budget> tenantOverrides) {

    /** The currency when none is configured. */
    public static final String DEFAULT_CURRENCY = "USD";

    /** The warning share when none is configured. */
    public static final double DEFAULT_WARNING_SHARE = 0.9;

    /** No price nor budget anywhere. */
    public static final BudgetSettings NONE = new BudgetSettings(DEFAULT_CURRENCY, DEFAULT_WARNING_SHARE, Map.of(),
            Budget.NONE, Map.of());

    public BudgetSettings {
        if (!(warningShare > 0 && warningShare <= 1)) {
            throw new IllegalArgumentException("warningShare must be above 0 and at most 1, was " + warningShare);
        }
        clients = Map.copyOf(clients);
        tenantOverrides = Map.copyOf(tenantOverrides);
    }

    /**
     * Whether no budget is set anywhere (prices alone count nothing).
     * @return {@code true} when nothing is to be counted
     */
    public boolean hasNoBudget() {
        return this.defaultTenant.isEmpty() && this.tenantOverrides.values().stream().allMatch(Budget::isEmpty)
                && this.clients.values().stream().allMatch(ClientBudgets::hasNoBudget);
    }

    /**
     * The price of a client's model.
     * @param client the client name
     * @param model the model name
     * @return its price, or {@code null} when it has none
     */
    public @Nullable ModelPrice price(String client, String model) {
        ClientBudgets budgets = this.clients.get(client);
        return (budgets != null) ? budgets.prices().get(model) : null;
    }

    /**
     * The budget of a client's model.
     * @param client the client name
     * @param model the model name
     * @return its budget ({@link Budget#NONE} for none)
     */
    public Budget model(String client, String model) {
        ClientBudgets budgets = this.clients.get(client);
        if (budgets == null) {
            return Budget.NONE;
        }
        Budget own = budgets.models().get(model);
        return (own != null) ? own : budgets.otherModels();
    }

    /**
     * The budget of a client as a whole.
     * @param client the client name
     * @return its budget ({@link Budget#NONE} for none)
     */
    public Budget client(String client) {
        ClientBudgets budgets = this.clients.get(client);
        return (budgets != null) ? budgets.client() : Budget.NONE;
    }

    /**
     * The budget of a tenant.
     * @param tenant the tenant id, or {@code null} for a call without tenant
     * @return its budget ({@link Budget#NONE} for none)
     */
    public Budget tenant(@Nullable String tenant) {
        if (tenant == null) {
            return Budget.NONE;
        }
        Budget override = this.tenantOverrides.get(tenant);
        return (override != null) ? override : this.defaultTenant;
    }

    /**
     * The prices and budgets of one client.
     *
     * @param client the budget of the client as a whole
     * @param otherModels the budget of each model not listed ({@code default-limits})
     * @param models the budgets of the listed models
     * @param prices the prices of the listed models that have one
     */
    public record ClientBudgets(Budget client, Budget otherModels, Map<String, Budget> models,
            Map<String, ModelPrice> prices) {

        public ClientBudgets {
            models = Map.copyOf(models);
            prices = Map.copyOf(prices);
        }

        boolean hasNoBudget() {
            return this.client.isEmpty() && this.otherModels.isEmpty()
                    && this.models.values().stream().allMatch(Budget::isEmpty);
        }

    }

}
