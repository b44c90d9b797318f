package io.github.llmthrottle.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.math.BigDecimal;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.budget.BudgetReservation;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.provider.LogText;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.quota.QuotaReservation;
import io.github.llmthrottle.retry.RetryEngine;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The tokens of one {@link ThrottledAttempt}: its admission ({@link #admit}), its permit
 * and long-window quota reservation, the prompt-cache entry it may have written, the
 * calibration of its target's limiter from the provider's headers, and the settlement of
 * what the provider counted (bounded to sane figures) with every place that learns from
 * it: the events, the prompt cache, the estimator and the observations.
 */
final class AttemptTokens {

    /** Logged as the attempt whose tokens these are, as it always was. */
    private static final Log logger = LogFactory.getLog(ThrottledAttempt.class);

    private final CallContext call;

    /** The model the attempt is measured and calibrated as: a deployment's own. */
    private final ThrottledModel target;

    private final Permit permit;

    private final QuotaReservation quota;

    private final BudgetReservation budget;

    /** Whether the attempt entered its prompt's prefixes in the client's prompt cache. */
    private boolean enteredCache;

    private AttemptTokens(CallContext call, ThrottledModel target, Permit permit, QuotaReservation quota,
            BudgetReservation budget) {
        this.call = call;
        this.target = target;
        this.permit = permit;
        this.quota = quota;
        this.budget = budget;
    }

    /**
     * Admits the attempt: its long-window quotas and budgets first (a call whose quota or
     * budget is used up fails at once instead of queueing; a model's deployments share
     * the model's), then the target's limiter.
     * @param call the call
     * @param target the model or deployment the attempt is admitted as
     * @return the admitted attempt's tokens
     * @throws IOException when interrupted while waiting
     */
    static AttemptTokens admit(CallContext call, ThrottledModel target) throws IOException {
        AdmissionRequest request = call.admissionNow();
        QuotaReservation quota = call.pipeline()
            .quotas()
            .reserve(call.clientName(), call.model().name, request.tenant(),
                    request.inputTokens() + request.outputTokens());
        BudgetReservation budget = BudgetReservation.none();
        boolean admitted = false;
        try {
            budget = call.pipeline()
                .budgets()
                .reserve(call.clientName(), call.model().name, request.tenant(), request.inputTokens(),
                        request.outputTokens());
            Permit permit = budget.around(quota.around(target.limiter.acquire(request)));
            admitted = true;
            return new AttemptTokens(call, target, permit, quota, budget);
        }
        catch (LlmThrottleException ex) {
            throw call.admissionFailure(request, ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException(
                    "Interrupted while waiting for admission to client '" + call.clientName() + "', model '"
                            + target.name + "'");
            interrupted.initCause(ex);
            throw interrupted;
        }
        finally {
            if (!admitted) {
                quota.cancel();
                budget.cancel();
            }
        }
    }

    /**
     * Admits the attempt as {@link #admit} does, without holding a thread: the target's
     * limiter completes the result when it admits the call.
     * @param call the call
     * @param target the model or deployment the attempt is admitted as
     * @param waiting where the admission's own future is handed, to be cancelled when the
     * caller gives up (cancelling it leaves the queue, and nothing stays reserved)
     * @return the admitted attempt's tokens, or the failure {@link #admit} would throw
     */
    static CompletableFuture<AttemptTokens> admitAsync(CallContext call, ThrottledModel target,
            Consumer<CompletableFuture<?>> waiting) {
        AdmissionRequest request = call.admissionNow();
        QuotaReservation quota;
        BudgetReservation budget;
        try {
            quota = call.pipeline()
                .quotas()
                .reserve(call.clientName(), call.model().name, request.tenant(),
                        request.inputTokens() + request.outputTokens());
        }
        catch (LlmThrottleException ex) {
            return CompletableFuture.failedFuture(call.admissionFailure(request, ex));
        }
        try {
            budget = call.pipeline()
                .budgets()
                .reserve(call.clientName(), call.model().name, request.tenant(), request.inputTokens(),
                        request.outputTokens());
        }
        catch (RuntimeException ex) {
            quota.cancel();
            return CompletableFuture.failedFuture(
                    (ex instanceof LlmThrottleException refusal) ? call.admissionFailure(request, refusal) : ex);
        }
        CompletableFuture<Permit> admission = target.limiter.acquireAsync(request);
        waiting.accept(admission);
        return admission.handle((permit, failure) -> {
            if (failure != null) {
                quota.cancel();
                budget.cancel();
                Throwable cause = RetryEngine.causeOf(failure);
                throw new CompletionException(
                        (cause instanceof LlmThrottleException ex) ? call.admissionFailure(request, ex) : cause);
            }
            return new AttemptTokens(call, target, budget.around(quota.around(permit)), quota, budget);
        });
    }

    Permit permit() {
        return this.permit;
    }

    /**
     * The provider writes the prompt's cache entry as it takes the call: calls waiting
     * with the same prompt now ask only for what follows it.
     */
    void enterCache() {
        this.enteredCache = this.call.pipeline().promptCache().sent(this.call.model().name, this.call.llmRequest());
        if (this.enteredCache) {
            this.target.limiter.demandsChanged();
        }
    }

    /** The provider refused the call or did not answer: it wrote nothing to its cache. */
    void notWrittenToCache() {
        if (this.enteredCache) {
            this.enteredCache = false;
            this.call.pipeline().promptCache().refused(this.call.model().name, this.call.llmRequest());
        }
    }

    /** The provider answered: the quota and budgets bill the call from here on. */
    void answered() {
        this.quota.answered();
        this.budget.answered();
    }

    /**
     * Calibrates the target's limiter from the provider's rate-limit headers.
     * @param snapshot the headers, or {@code null}
     */
    void calibrate(@Nullable RateLimitSnapshot snapshot) {
        if (snapshot != null && !snapshot.isEmpty()) {
            this.target.limiter.calibrate(snapshot);
        }
    }

    /**
     * Settles the tokens a whole answer counted, with the headers the provider wrote once
     * it had settled the call.
     * @param usage the tokens the provider counted
     * @param rateLimits the answer's rate-limit headers, or {@code null}
     * @param observation the attempt's observation
     */
    void settle(Usage usage, @Nullable RateLimitSnapshot rateLimits, CallObservation.Attempt observation) {
        Usage sane = sane(usage);
        this.permit.settle(sane.inputTokens(), sane.outputTokens(), rateLimits);
        recordUsage(sane, observation);
    }

    /**
     * Settles the tokens a stream counted.
     * @param usage the tokens the provider counted
     * @param observation the attempt's observation
     */
    void settleStreamed(Usage usage, CallObservation.Attempt observation) {
        Usage sane = sane(usage);
        this.permit.settle(sane.inputTokens(), sane.outputTokens());
        recordUsage(sane, observation);
    }

    private Usage sane(Usage usage) {
        return UsageBounds.sane(usage, this.target.limiter.limits(), this.call.clientName(), this.target.name);
    }

    private void recordUsage(Usage usage, CallObservation.Attempt observation) {
        ClientPipeline pipeline = this.call.pipeline();
        observation.usage(usage);
        this.budget.settle(usage);
        this.call.events().onUsage(pipeline.clientName(), this.target.name, usage);
        BigDecimal cost = pipeline.budgets().cost(pipeline.clientName(), this.call.model().name, usage);
        if (cost != null) {
            this.call.events().onCost(pipeline.clientName(), this.target.name, cost);
        }
        pipeline.promptCache()
            .settled(this.call.model().name, this.call.llmRequest(),
                    usage.cacheReadTokens() > 0 || usage.cacheWriteTokens() > 0);
        // the whole prompt, cache reads included, measures its text
        try {
            pipeline.estimator().observe(this.call.model().name, this.call.llmRequest(), usage.promptTokens());
        }
        catch (RuntimeException ex) {
            // an application's estimator must not keep the call from settling
            logger.warn(LogText.escape("TokenEstimator.observe failed for client '" + this.call.clientName()
                    + "', model '" + this.target.name + "'; the call is settled all the same"), ex);
        }
    }

}
