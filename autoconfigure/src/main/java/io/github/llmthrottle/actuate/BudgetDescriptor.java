package io.github.llmthrottle.actuate;

import java.math.BigDecimal;
import java.time.Instant;

import io.github.llmthrottle.budget.Budgets.BudgetState;
import org.jspecify.annotations.Nullable;

/**
 * What is left of one budget in money in the window in force, as the endpoint lists it
 * under {@code budgets}.
 *
 * @param scope {@code model}, {@code client} or {@code tenant}
 * @param client the client of a model or client budget
 * @param model the model of a model budget
 * @param tenant the tenant of a tenant budget, when tenant ids are shown
 * @param window {@code day} or {@code month} (calendar, UTC)
 * @param currency the currency of the amounts ({@code llm.throttle.currency})
 * @param limit the budget
 * @param spent what was spent in the window so far (calls in flight at their estimated
 * cost)
 * @param remaining what is left
 * @param resetsAt when the window ends and spending starts again from zero
 */
public record BudgetDescriptor(String scope, @Nullable String client, @Nullable String model, @Nullable String tenant,
        String window, String currency, BigDecimal limit, BigDecimal spent, BigDecimal remaining, Instant resetsAt) {

    static BudgetDescriptor of(BudgetState state, boolean showTenant) {
        return new BudgetDescriptor(state.scope(), state.client(), state.model(), showTenant ? state.tenant() : null,
                state.window().tag(), state.currency(), state.limit(), state.spent(), state.remaining(),
                state.resetsAt());
    }

}
