package io.github.llmthrottle.annotation;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.budget.Budgets;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.routing.ModelCircuit;
import io.github.llmthrottle.routing.RouteCandidate;
import io.github.llmthrottle.routing.TokenHistory;
import org.jspecify.annotations.Nullable;

/**
 * A model of a configured client as a routing candidate (the annotation's client, or
 * another one for a cross-provider fallback).
 * <p>
 * The router decides before the method has built its request, so the admission wait is
 * estimated for a <em>typical</em> request of the model: one request with the average
 * input and output tokens of the model's successful calls so far (zero tokens before the
 * first one). The estimate counts the calls queued ahead at the same or a higher
 * priority, the pause after a 429, and the invocation's tenant's buckets; it does not
 * foresee the concurrency limit.
 */
final class ThrottledModelCandidate implements RouteCandidate {

    private final ThrottledClient client;

    private final ThrottledModel model;

    private final Budgets budgets;

    ThrottledModelCandidate(ThrottledClient client, ThrottledModel model, Budgets budgets) {
        this.client = client;
        this.model = model;
        this.budgets = budgets;
    }

    @Override
    public boolean isNearBudget(@Nullable String tenant) {
        return this.budgets.isNearlySpent(this.client.getName(), this.model.getName(), tenant);
    }

    @Override
    public String model() {
        return this.model.getName();
    }

    @Override
    public String client() {
        return this.client.getName();
    }

    @Override
    public @Nullable Long contextWindow() {
        return this.model.getContextWindow();
    }

    @Override
    public ModelCircuit circuit() {
        return this.model.getCircuit();
    }

    @Override
    public boolean isCallPermitted() {
        List<ThrottledModel> deployments = this.model.getDeployments();
        if (deployments.isEmpty()) {
            return this.model.getCircuit().isCallPermitted();
        }
        return deployments.stream().anyMatch((deployment) -> deployment.getCircuit().isCallPermitted());
    }

    @Override
    public @Nullable Duration remainingOpenTime() {
        List<ThrottledModel> deployments = this.model.getDeployments();
        if (deployments.isEmpty()) {
            return this.model.getCircuit().remainingOpenTime();
        }
        return deployments.stream()
            .map((deployment) -> deployment.getCircuit().remainingOpenTime())
            .filter(Objects::nonNull)
            .min(Comparator.naturalOrder())
            .orElse(null);
    }

    /**
     * The wait of the model, or of its deployment that would admit the call soonest (a
     * call goes to that one).
     */
    @Override
    public @Nullable Duration estimatedWait(Priority priority, @Nullable String tenant, Duration maxWait) {
        AdmissionRequest typical = typicalRequest(priority, tenant, maxWait);
        List<ThrottledModel> deployments = this.model.getDeployments();
        if (deployments.isEmpty()) {
            return this.model.getLimiter().estimatedWait(typical);
        }
        Duration soonest = null;
        for (ThrottledModel deployment : deployments) {
            Duration wait = deployment.getCircuit().isCallPermitted() ? deployment.getLimiter().estimatedWait(typical)
                    : null;
            soonest = (wait != null && (soonest == null || wait.compareTo(soonest) < 0)) ? wait : soonest;
        }
        return soonest;
    }

    /**
     * A request with the average tokens of the model's successful calls.
     */
    private AdmissionRequest typicalRequest(Priority priority, @Nullable String tenant, Duration maxWait) {
        TokenHistory history = history();
        long calls = history.calls();
        return new AdmissionRequest(priority, tenant, (calls > 0) ? history.inputTokens() / calls : 0,
                (calls > 0) ? history.outputTokens() / calls : 0, maxWait);
    }

    /**
     * The model's successful calls and their tokens (counted on the deployments that
     * served them, when it has deployments).
     */
    @Override
    public TokenHistory history() {
        ModelTotals.Snapshot totals = this.model.getTotals().snapshot();
        long inputTokens = totals.inputTokens();
        long outputTokens = totals.outputTokens();
        for (ThrottledModel deployment : this.model.getDeployments()) {
            ModelTotals.Snapshot served = deployment.getTotals().snapshot();
            inputTokens += served.inputTokens();
            outputTokens += served.outputTokens();
        }
        return new TokenHistory(totals.succeeded(), inputTokens, outputTokens);
    }

    @Override
    public void rejected(LlmThrottleException rejection) {
        this.client.recordRejection(model(), rejection);
    }

    @Override
    public void routedAway(String to, LlmThrottleException cause) {
        this.client.recordFallback(model(), to, cause);
    }

    @Override
    public String toString() {
        return this.client.getName() + "/" + model();
    }

}
