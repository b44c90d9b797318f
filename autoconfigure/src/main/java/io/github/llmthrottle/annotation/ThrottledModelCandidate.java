package io.github.llmthrottle.annotation;

import java.time.Duration;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.routing.ModelCircuit;
import io.github.llmthrottle.routing.RouteCandidate;
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

    ThrottledModelCandidate(ThrottledClient client, ThrottledModel model) {
        this.client = client;
        this.model = model;
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
    public @Nullable Duration estimatedWait(Priority priority, @Nullable String tenant, Duration maxWait) {
        ModelTotals.Snapshot totals = this.model.getTotals().snapshot();
        long calls = totals.succeeded();
        long inputTokens = (calls > 0) ? totals.inputTokens() / calls : 0;
        long outputTokens = (calls > 0) ? totals.outputTokens() / calls : 0;
        return this.model.getLimiter()
            .estimatedWait(new AdmissionRequest(priority, tenant, inputTokens, outputTokens, maxWait));
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
