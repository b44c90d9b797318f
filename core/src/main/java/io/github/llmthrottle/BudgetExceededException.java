package io.github.llmthrottle;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when the estimated cost of a call no longer fits a budget in money
 * ({@code budget-per-day}, {@code budget-per-month}) of its model, its client or its
 * tenant: the call fails before it is sent, or a {@code @Throttled} invocation moves on
 * to its next model. {@link #getRetryAfter()} is the time until the budget's window
 * resets (00:00 UTC of the next day, or of the first day of the next month).
 */
public class BudgetExceededException extends LlmThrottleException {

    private final @Nullable String tenant;

    /**
     * Creates the exception.
     * @param client the client name
     * @param model the model name
     * @param tenant the tenant of the call, or {@code null}
     * @param owner whose budget: for example {@code client 'anthropic'}
     * @param budget the budget and what is left of it, for example
     * {@code 10.00 USD per day, 0.02 USD left}
     * @param retryAfter the time until the budget's window resets
     */
    public BudgetExceededException(String client, String model, @Nullable String tenant, String owner, String budget,
            Duration retryAfter) {
        super("The budget of " + owner + " of " + budget + " cannot take the estimated cost of a call to "
                + describe(client, model) + retryHint(retryAfter), client, model, retryAfter, null);
        this.tenant = tenant;
    }

    /**
     * The tenant of the call.
     * @return the tenant, or {@code null} for a call without tenant
     */
    public @Nullable String getTenant() {
        return this.tenant;
    }

    @Override
    public RejectionReason getRejectionReason() {
        return RejectionReason.BUDGET;
    }

}
