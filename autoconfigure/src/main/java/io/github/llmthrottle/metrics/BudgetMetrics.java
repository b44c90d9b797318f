package io.github.llmthrottle.metrics;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.budget.Budgets;
import io.github.llmthrottle.budget.Budgets.BudgetState;
import io.github.llmthrottle.client.ThrottleObserver;
import io.github.llmthrottle.client.ThrottleSettings;
import io.github.llmthrottle.quota.QuotaWindow;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.jspecify.annotations.Nullable;

/**
 * Meters of money ({@link Budgets}): the {@code llm.cost} counter (what settled calls
 * cost, tagged {@code client}, {@code model} and {@code currency}; only models with a
 * price count), and the gauges {@code llm.budget.spent} (spent in the window in force,
 * calls in flight at their estimate; back to 0 when the window resets) and
 * {@code llm.budget.limit} of every configured budget, tagged like the quota gauges:
 * {@code client}, {@code model}, {@code tenant}, {@code scope}, {@code window} and
 * {@code currency}, a tag a budget does not name being {@code all}. Tenants have gauges
 * when they have a budget of their own ({@code tenants.overrides.T}); the endpoint lists
 * the others seen lately.
 */
public final class BudgetMetrics implements ThrottleObserver {

    static final String COST = "llm.cost";

    static final String SPENT = "llm.budget.spent";

    static final String LIMIT = "llm.budget.limit";

    private static final String ALL = "all";

    private final MeterRegistry registry;

    private final Budgets budgets;

    /**
     * Creates the gauges of every configured budget.
     * @param registry where meters go
     * @param settings the configured clients and models
     * @param budgets the prices and budgets
     */
    public BudgetMetrics(MeterRegistry registry, ThrottleSettings settings, Budgets budgets) {
        this.registry = registry;
        this.budgets = budgets;
        if (!budgets.isEmpty()) {
            Map<String, List<String>> models = new LinkedHashMap<>();
            settings.clients().forEach((name, client) -> models.put(name, List.copyOf(client.models().keySet())));
            budgets.states(models).forEach(this::register);
        }
    }

    @Override
    public void onCost(String client, String model, BigDecimal cost) {
        Counter.builder(COST)
            .description("What settled calls cost, from their usage and the model's prices")
            .tags("client", client, "model", model, "currency", this.budgets.settings().currency())
            .register(this.registry)
            .increment(cost.doubleValue());
    }

    private void register(BudgetState state) {
        String scope = state.scope();
        @Nullable String client = state.client();
        @Nullable String model = state.model();
        @Nullable String tenant = state.tenant();
        QuotaWindow window = state.window();
        Tags tags = Tags.of("client", orAll(client), "model", orAll(model), "tenant", orAll(tenant), "scope", scope,
                "window", window.tag(), "currency", state.currency());
        Gauge
            .builder(SPENT, this.budgets,
                    (budgets) -> budgets.spent(scope, client, model, tenant, window).doubleValue())
            .description("Money spent against a budget of a day or a month in the window in force")
            .tags(tags)
            .strongReference(true)
            .register(this.registry);
        double limit = state.limit().doubleValue();
        Gauge.builder(LIMIT, () -> limit)
            .description("A budget in money of a day or a month")
            .tags(tags)
            .strongReference(true)
            .register(this.registry);
    }

    private static String orAll(@Nullable String name) {
        return (name != null) ? name : ALL;
    }

}
