package io.github.llmthrottle.client;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongSupplier;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.ContextWindowExceededException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.provider.LlmRequest;
import io.github.llmthrottle.retry.CallDeadline;
import io.github.llmthrottle.retry.RetryEngine;
import org.jspecify.annotations.Nullable;

/**
 * What one call through a {@link ThrottledClient} is, worked out once before anything is
 * sent and shared by its attempts: the client's {@link ClientPipeline}, the request and
 * what it asks for, the model it is counted against, its admission request (its caller's
 * priority, tenant and max-wait, and the estimated tokens), the HTTP client's deadline,
 * and the observers and retries of this call. Everything comes from the request and the
 * client: nothing is read from the calling thread, so the call is the same on whatever
 * thread it runs, and its last events (a stream's) wherever they happen.
 *
 * @param pipeline what every call of the client shares
 * @param request the request as the adapter sent it
 * @param llmRequest what the request's body asks for
 * @param streaming whether the answer is streamed
 * @param model the model the call is counted against
 * @param promptTokens the estimated input tokens of the whole prompt, cached prefix
 * included
 * @param admission what the call asks of the model's limits
 * @param deadline the HTTP client's limit on the whole call, or {@code null} when it sets
 * none
 * @param startNanos when the call started, on the client's clock
 * @param events the observers' view of this call ({@link ThrottleObserver#forCall}),
 * which knows its caller
 * @param retries the client's retries, reporting to {@code events}
 */
record CallContext(ClientPipeline pipeline, ProviderRequest request, LlmRequest llmRequest, boolean streaming,
        ThrottledModel model, long promptTokens, AdmissionRequest admission, @Nullable CallDeadline deadline,
        long startNanos, ThrottleObserver events, RetryEngine retries) {

    /**
     * Works out what {@code request} is for a client: its model, its tokens and its
     * admission request, with the priority, tenant and max-wait of its
     * {@link ProviderRequest#caller() caller} (the {@link TenantResolver}'s tenant when
     * the caller names none).
     * @param pipeline what every call of the client shares
     * @param models the client's models by name, created on first use
     * @param request the request
     * @return the call's context
     */
    static CallContext of(ClientPipeline pipeline, Function<String, ThrottledModel> models, ProviderRequest request) {
        Read read = Read.of(pipeline, request);
        // the provider's own count, when the client asks for one (the whole prompt: it
        // does not know of caching)
        return read.counted(models,
                pipeline.exactCounts().inputTokens(read.modelName(), request, read.llmRequest(), read.estimated()));
    }

    /**
     * Works out what {@code request} is for a client, as {@link #of} does, without
     * holding a thread while the provider counts its tokens.
     * @param pipeline what every call of the client shares
     * @param models the client's models by name, created on first use
     * @param request the request
     * @return the call's context, once counted; cancelling it cancels the count
     */
    static CompletableFuture<CallContext> ofAsync(ClientPipeline pipeline, Function<String, ThrottledModel> models,
            ProviderRequest request) {
        Read read = Read.of(pipeline, request);
        return pipeline.exactCounts()
            .inputTokensAsync(read.modelName(), request, read.llmRequest(), read.estimated())
            .thenApply((promptTokens) -> read.counted(models, promptTokens));
    }

    /**
     * The model the call is counted against: the configured model the request names (by
     * any of its names: the body is sent as it is), its caller's, or the default.
     */
    private static String modelOf(ClientSettings settings, LlmRequest llmRequest, Caller caller) {
        String requested = llmRequest.model();
        if (requested != null && !requested.isBlank()) {
            return settings.configuredModelOf(requested);
        }
        if (caller.model() != null) {
            return caller.model();
        }
        String defaultModel = settings.defaultModel();
        return (defaultModel != null) ? defaultModel : "default";
    }

    /**
     * The input the provider will count now, for a call that waits for admission (under
     * the limiter's lock: an estimator that fails leaves the estimate as it was).
     */
    private static long recount(ClientPipeline pipeline, String modelName, LlmRequest llmRequest) {
        try {
            return pipeline.estimator()
                .estimateInputTokens(modelName, pipeline.promptCache().counted(modelName, llmRequest));
        }
        catch (RuntimeException ex) {
            return -1;
        }
    }

    String clientName() {
        return this.pipeline.clientName();
    }

    /**
     * Refuses, before anything is sent, a request that does not fit its model's context
     * window: its estimated input (the whole prompt, cached or not) plus the output it
     * reserves.
     */
    void checkContextWindow() {
        Long window = this.model.contextWindow;
        if (window != null && this.promptTokens + this.admission.outputTokens() > window) {
            throw new ContextWindowExceededException(clientName(), this.model.name, this.promptTokens,
                    this.admission.outputTokens(), window);
        }
    }

    /**
     * What an attempt asks of the model's limits now: the call's admission request, with
     * a wait that ends in time for the HTTP client's call timeout.
     * @return the admission request
     */
    AdmissionRequest admissionNow() {
        if (this.deadline == null) {
            return this.admission;
        }
        Duration maxWait = (this.admission.maxWait() != null) ? this.admission.maxWait()
                : this.model.limiter.defaultMaxWait();
        Duration left = this.deadline.leftForWaiting(this.pipeline.time().nanoTime());
        return (left.compareTo(maxWait) < 0) ? this.admission.withMaxWait(left) : this.admission;
    }

    /**
     * The failure of an admission that the call timeout cut short, saying so; any other
     * admission failure as it is.
     * @param request what the attempt asked for
     * @param failure why it was not admitted
     * @return the failure to throw
     */
    LlmThrottleException admissionFailure(AdmissionRequest request, LlmThrottleException failure) {
        if (this.deadline == null || request == this.admission || !(failure instanceof AdmissionTimeoutException)) {
            return failure;
        }
        return AdmissionTimeoutException.withinCallTimeout(clientName(), this.model.name, this.deadline.callTimeout(),
                failure.getRetryAfter());
    }

    /**
     * How long ago {@code startNanos} was, on the client's clock.
     * @param startNanos a time on the client's clock
     * @return the time since
     */
    Duration since(long startNanos) {
        return Duration.ofNanos(this.pipeline.time().nanoTime() - startNanos);
    }

    /**
     * What a request says before its tokens are counted: read once, then completed into
     * the call's context with the count ({@link #counted}).
     */
    private record Read(ClientPipeline pipeline, ProviderRequest request, long startNanos, LlmRequest llmRequest,
            String modelName, long estimated) {

        static Read of(ClientPipeline pipeline, ProviderRequest request) {
            long startNanos = pipeline.time().nanoTime();
            LlmRequest llmRequest = pipeline.requestReader().read(request.body());
            String modelName = modelOf(pipeline.settings(), llmRequest, request.caller());
            return new Read(pipeline, request, startNanos, llmRequest, modelName,
                    pipeline.estimator().estimateInputTokens(modelName, llmRequest));
        }

        CallContext counted(Function<String, ThrottledModel> models, long promptTokens) {
            ClientPipeline pipeline = this.pipeline;
            CallDeadline deadline = (this.request.callTimeout() != null)
                    ? CallDeadline.of(this.request.callTimeout(), this.startNanos) : null;
            boolean streaming = this.request.streaming() || this.llmRequest.stream();
            ThrottledModel model = models.apply(this.modelName);
            // what the provider will count: not the prefix it is expected to read from
            // its prompt cache
            LlmRequest counted = pipeline.promptCache().counted(this.modelName, this.llmRequest);
            long inputTokens = (counted == this.llmRequest) ? promptTokens : Math.max(0, promptTokens
                    - (this.estimated - pipeline.estimator().estimateInputTokens(this.modelName, counted)));
            Long maxOutput = this.llmRequest.maxOutputTokens();
            Caller caller = this.request.caller();
            if (caller.tenant() == null) {
                caller = caller.withTenant(pipeline.tenantResolver().resolveTenant(this.request));
            }
            // a call that waits may find its prompt's prefix cached by then
            String modelName = this.modelName;
            LlmRequest llmRequest = this.llmRequest;
            LongSupplier recount = llmRequest.cachePrefixes().isEmpty() ? null
                    : () -> recount(pipeline, modelName, llmRequest);
            AdmissionRequest admission = new AdmissionRequest(caller.priority(), caller.tenant(), inputTokens,
                    (maxOutput != null) ? maxOutput : 0, caller.maxWait(), recount);
            ThrottleObserver events = pipeline.events().forCall(caller);
            return new CallContext(pipeline, this.request, llmRequest, streaming, model, promptTokens, admission,
                    deadline, this.startNanos, events, pipeline.retryEngine().withListener(events));
        }

    }

}
