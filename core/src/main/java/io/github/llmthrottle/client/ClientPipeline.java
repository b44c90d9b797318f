package io.github.llmthrottle.client;

import java.util.Set;

import io.github.llmthrottle.budget.Budgets;
import io.github.llmthrottle.provider.RequestBodyReader;
import io.github.llmthrottle.provider.TokenEstimator;
import io.github.llmthrottle.provider.UsageReader;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.retry.ResponseClassifier;
import io.github.llmthrottle.retry.RetryEngine;
import io.github.llmthrottle.time.TimeSource;

/**
 * What every call of one {@link ThrottledClient} shares, wired once with the client: its
 * settings, the readers, estimators and classifier of its dialect, its retries, its
 * events, and the streams it handed out. Each call reads them through its
 * {@link CallContext}.
 *
 * @param settings the client's settings
 * @param retryEngine retries the client's model calls, reporting to {@code events}
 * @param classifier classifies the provider's answers
 * @param estimator estimates a request's input tokens
 * @param exactCounts the provider's counts of large requests, for a client that asks for
 * them
 * @param requestReader reads what a request asks for
 * @param usageReader reads the tokens a response counted
 * @param promptCache what the provider's prompt cache is expected to hold for this
 * client's models
 * @param time the client's clock
 * @param tenantResolver the tenant of a request outside a {@code @Throttled} invocation
 * @param events every event of this client: the totals first, then the application's
 * observers
 * @param quotas the token quotas over days and months, shared by every client
 * @param budgets the prices and the budgets in money, shared by every client
 * @param openStreams streamed responses handed out and not ended yet
 */
record ClientPipeline(ClientSettings settings, RetryEngine retryEngine, ResponseClassifier classifier,
        TokenEstimator estimator, ExactTokenCounts exactCounts, RequestBodyReader requestReader,
        UsageReader usageReader, PromptCache promptCache, TimeSource time, TenantResolver tenantResolver,
        ThrottleObserver events, TokenQuotas quotas, Budgets budgets, Set<StreamSettlement> openStreams) {

    /**
     * The client's name.
     * @return the name
     */
    String clientName() {
        return this.settings.name();
    }

}
