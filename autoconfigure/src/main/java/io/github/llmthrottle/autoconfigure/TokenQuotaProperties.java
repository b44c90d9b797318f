package io.github.llmthrottle.autoconfigure;

import java.math.BigDecimal;

import org.jspecify.annotations.Nullable;

/**
 * Token quotas ({@code tokens-per-day}, {@code tokens-per-month}) and budgets in money
 * ({@code budget-per-day}, {@code budget-per-month}) of a model, a client or a tenant:
 * input plus output tokens per calendar day and per calendar month in UTC, counted from
 * each call's usage (reserved from its estimate at admission); a call that would go over
 * fails at once, or routes to a fallback model under @Throttled.
 */
public abstract class TokenQuotaProperties {

    /**
     * Input plus output tokens per calendar day (UTC) of this model, client (all its
     * models together) or tenant (all clients and models together); the count starts
     * again at 00:00 UTC.
     */
    private @Nullable Long tokensPerDay;

    /**
     * Input plus output tokens per calendar month (UTC) of this model, client (all its
     * models together) or tenant (all clients and models together); the count starts
     * again at 00:00 UTC on the first day of the month.
     */
    private @Nullable Long tokensPerMonth;

    /**
     * Budget in money (in llm.throttle.currency) per calendar day (UTC) of this model,
     * client (all its models together) or tenant (all clients and models together): a
     * call whose estimated cost no longer fits fails at once, or routes to a fallback
     * model under @Throttled. Only models with a price count.
     */
    private @Nullable BigDecimal budgetPerDay;

    /**
     * Budget in money (in llm.throttle.currency) per calendar month (UTC) of this model,
     * client (all its models together) or tenant (all clients and models together).
     */
    private @Nullable BigDecimal budgetPerMonth;

    public @Nullable BigDecimal getBudgetPerDay() {
        return this.budgetPerDay;
    }

    public void setBudgetPerDay(@Nullable BigDecimal budgetPerDay) {
        this.budgetPerDay = budgetPerDay;
    }

    public @Nullable BigDecimal getBudgetPerMonth() {
        return this.budgetPerMonth;
    }

    public void setBudgetPerMonth(@Nullable BigDecimal budgetPerMonth) {
        this.budgetPerMonth = budgetPerMonth;
    }

    public @Nullable Long getTokensPerDay() {
        return this.tokensPerDay;
    }

    public void setTokensPerDay(@Nullable Long tokensPerDay) {
        this.tokensPerDay = tokensPerDay;
    }

    public @Nullable Long getTokensPerMonth() {
        return this.tokensPerMonth;
    }

    public void setTokensPerMonth(@Nullable Long tokensPerMonth) {
        this.tokensPerMonth = tokensPerMonth;
    }

}
