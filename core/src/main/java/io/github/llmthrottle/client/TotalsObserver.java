package io.github.llmthrottle.client;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.function.Function;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.retry.Classification;

/**
 * Keeps the {@link ModelTotals} of one client from the same events every other observer
 * sees.
 */
final class TotalsObserver implements ThrottleObserver {

    private final Function<String, ModelTotals> totals;

    /**
     * Creates the observer.
     * @param totals the totals of a model, by model name
     */
    TotalsObserver(Function<String, ModelTotals> totals) {
        this.totals = totals;
    }

    @Override
    public void onAttempt(String client, String model, Classification.Outcome outcome, int status, Duration duration) {
        ModelTotals totals = this.totals.apply(model);
        totals.attempts.increment();
        switch (outcome) {
            case RATE_LIMITED -> totals.rateLimited.increment();
            case OVERLOADED -> totals.overloaded.increment();
            default -> {
            }
        }
    }

    @Override
    public void onRetry(String client, String model, Classification classification, Duration wait, int retryCount) {
        this.totals.apply(model).retries.increment();
    }

    @Override
    public void onRejected(String client, String model, RejectionReason rejection, LlmThrottleException exception) {
        this.totals.apply(model).rejected.increment();
    }

    @Override
    public void onUsage(String client, String model, Usage usage) {
        ModelTotals totals = this.totals.apply(model);
        totals.inputTokens.add(usage.inputTokens());
        totals.outputTokens.add(usage.outputTokens());
        totals.cacheReadTokens.add(usage.cacheReadTokens());
        totals.cacheWriteTokens.add(usage.cacheWriteTokens());
    }

    @Override
    public void onCost(String client, String model, BigDecimal cost) {
        this.totals.apply(model).addCost(cost);
    }

    @Override
    public void onCall(String client, String model, CallOutcome outcome, Duration duration) {
        ModelTotals totals = this.totals.apply(model);
        totals.calls.increment();
        ((outcome == CallOutcome.SUCCESS) ? totals.succeeded : totals.failed).increment();
    }

    @Override
    public void onFallback(String client, String from, String to, Throwable cause) {
        this.totals.apply(from).fallbacks.increment();
    }

}
