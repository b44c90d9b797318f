package io.github.llmthrottle.client;

import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.budget.Budgets;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.observation.LlmThrottleObservations;
import io.github.llmthrottle.provider.EndpointClass;
import io.github.llmthrottle.provider.RequestBodyReader;
import io.github.llmthrottle.provider.TokenEstimator;
import io.github.llmthrottle.provider.UsageReader;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.retry.BackOff;
import io.github.llmthrottle.retry.ResponseClassifier;
import io.github.llmthrottle.retry.RetryEngine;
import io.github.llmthrottle.routing.CircuitSettings;
import io.github.llmthrottle.routing.CircuitStore;
import io.github.llmthrottle.routing.ModelCircuit;
import io.github.llmthrottle.time.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * One configured client at run time, and the entry of its call pipeline:
 * {@link #exchange} turns each HTTP request of any HTTP library into context resolution,
 * admission, attempts, classification, calibration, the model-wide pause, the circuit,
 * retries and the settlement of its tokens (see {@link ThrottledCall}). Adapters of HTTP
 * libraries (the {@code RestClient} interceptor, OkHttp, the official SDKs) only
 * translate their request and response types.
 */
public final class ThrottledClient {

    /** What every call of this client shares. */
    private final ClientPipeline pipeline;

    /** Retries token counts, which report to no observer: they are not the model's. */
    private final RetryEngine tokenCountRetries;

    private final TrackedModels models;

    /** Where calls and attempts are observed ({@code llm.throttle.call}, ...attempt). */
    private final LlmThrottleObservations observations;

    ThrottledClient(ClientSettings settings, LimiterRegistry limiters, TokenEstimator estimator,
            TenantResolver tenantResolver, ThrottleObserver observer, RequestBodyReader requestReader,
            UsageReader usageReader, CircuitSettings circuitSettings, TimeSource time) {
        this(settings, limiters, estimator, tenantResolver, observer, LlmThrottleObservations.NONE, requestReader,
                usageReader, circuitSettings, time, TokenQuotas.none(), Budgets.none(), CircuitStore.LOCAL);
    }

    ThrottledClient(ClientSettings settings, LimiterRegistry limiters, TokenEstimator estimator,
            TenantResolver tenantResolver, ThrottleObserver observer, LlmThrottleObservations observations,
            RequestBodyReader requestReader, UsageReader usageReader, CircuitSettings circuitSettings,
            TimeSource time) {
        this(settings, limiters, estimator, tenantResolver, observer, observations, requestReader, usageReader,
                circuitSettings, time, TokenQuotas.none(), Budgets.none(), CircuitStore.LOCAL);
    }

    ThrottledClient(ClientSettings settings, LimiterRegistry limiters, TokenEstimator estimator,
            TenantResolver tenantResolver, ThrottleObserver observer, LlmThrottleObservations observations,
            RequestBodyReader requestReader, UsageReader usageReader, CircuitSettings circuitSettings, TimeSource time,
            TokenQuotas quotas, Budgets budgets, CircuitStore circuits) {
        ThrottleObserver events = new CompositeThrottleObserver(
                List.of(new TotalsObserver((model) -> model(model).totals), observer));
        this.pipeline = new ClientPipeline(settings,
                new RetryEngine(settings.retry(), time, BackOff.THREAD_LOCAL_RANDOM, events),
                new ResponseClassifier(settings.provider(), time.clock()), estimator,
                ExactTokenCounts.of(settings, time), requestReader, usageReader, new PromptCache(time), time,
                tenantResolver, events, quotas, budgets, ConcurrentHashMap.newKeySet());
        this.observations = observations;
        this.tokenCountRetries = new RetryEngine(settings.retry(), time, BackOff.THREAD_LOCAL_RANDOM);
        this.models = new TrackedModels(settings, limiters, circuitSettings, circuits, time,
                (forgotten) -> events.onModelForgotten(settings.name(), forgotten.name));
    }

    public ClientSettings getSettings() {
        return this.pipeline.settings();
    }

    public String getName() {
        return this.pipeline.clientName();
    }

    /**
     * The models seen so far: every configured model, the deployments of each (as
     * {@code MODEL@DEPLOYMENT}), and any other model a request named.
     * @return the models by name
     */
    public Map<String, ThrottledModel> getModels() {
        return this.models.all();
    }

    /**
     * The run-time state of {@code name}, created on first use: a deployment's under
     * {@code MODEL@DEPLOYMENT}, a configured model's for any of its names.
     * @param name the model name
     * @return its state
     */
    public ThrottledModel model(String name) {
        return this.models.model(name);
    }

    /**
     * The run-time state of a tracked model, neither created nor counted as used.
     * @param name the model name, or one of a configured model's other names
     * @return its state, or {@code null} when the model is not tracked
     */
    public @Nullable ThrottledModel findModel(String name) {
        return this.models.find(name);
    }

    /**
     * What a request to {@code uri} is: adapters send a {@code PASS_THROUGH} one on
     * unread, as to another host, the rest through {@link #exchange}.
     * @param uri the request's URI
     * @return its class
     */
    public EndpointClass endpointClass(URI uri) {
        return this.pipeline.settings().provider().classify(uri);
    }

    /**
     * Sends one request through the call pipeline, as its {@link #endpointClass class}
     * says: a model call admitted, attempted, retried and settled as this client's
     * settings say; a token count retried but neither admitted nor charged nor sent to a
     * deployment; anything else sent once, untouched, its body handed over unread.
     * @param <R> the adapter's response type
     * @param request the request
     * @param exchange sends the request once per attempt
     * @return the final response: a success, or an error that is not retried
     * @throws IOException an I/O error that is not retried, or an interrupt while waiting
     * @throws LlmThrottleException when the call is refused or retries are exhausted
     */
    public <R extends ProviderResponse> ThrottledResponse<R> exchange(ProviderRequest request,
            ProviderExchange<R> exchange) throws IOException {
        return switch (endpointClass(request.uri())) {
            case MODEL_CALL ->
                new ThrottledCall<>(CallContext.of(this.pipeline, this::model, request), this.observations, exchange)
                    .run();
            case TOKEN_COUNT -> TokenCount.run(this.pipeline, this.tokenCountRetries, request, exchange);
            case PASS_THROUGH -> ThrottledResponse.unsettled(exchange.execute());
        };
    }

    /**
     * Sends one request as {@link #exchange} does, holding no thread while it waits: each
     * step runs on the thread that ended the one before, so the exchange must not block.
     * @param <R> the adapter's response type
     * @param request the request
     * @param exchange sends the request once per attempt, and reads whole bodies
     * @return the final response, or the failure {@link #exchange} would throw (a stream
     * is passed on with {@link ThrottledResponse#chunkRead}); cancelling it leaks
     * nothing.
     */
    public <R extends ProviderResponse> CompletableFuture<ThrottledResponse<R>> exchangeAsync(ProviderRequest request,
            AsyncProviderExchange<R> exchange) {
        return AsyncDispatch.start(this.pipeline, this.tokenCountRetries, this::model, this.observations, request,
                exchange);
    }

    /**
     * Waits for a model call's first admission holding no thread ({@link HeldAdmission}).
     * @param request the request, with its caller
     * @return the admission held, or {@code null}; cancelling it leaves the queue
     */
    public CompletableFuture<@Nullable HeldAdmission> admitAhead(ProviderRequest request) {
        return HeldAdmission.start(this, this.pipeline, this::model, this.observations, request);
    }

    /**
     * Ends (closes) every streamed response its caller left unread for longer than the
     * read timeout, giving back its slot and reservation ({@link IdleStreamReaper}).
     * @return how many streams were ended
     */
    public int expireIdleStreams() {
        return StreamSettlement.expireIdle(this.pipeline.openStreams(),
                this.pipeline.settings().readTimeout().toNanos());
    }

    /**
     * Records that a {@code @Throttled} invocation was routed away from {@code from}.
     * @param from the model that could not take the call
     * @param to the model tried next
     * @param cause why
     */
    public void recordFallback(String from, String to, Throwable cause) {
        this.pipeline.events().onFallback(getName(), from, to, cause);
    }

    /**
     * Records that a {@code @Throttled} invocation refused {@code model} before calling
     * it (an open circuit, or an admission longer than its max-wait).
     * @param model the model refused
     * @param rejection the exception the invocation would have seen
     */
    public void recordRejection(String model, LlmThrottleException rejection) {
        RejectionReason reason = rejection.getRejectionReason();
        if (reason != null) {
            this.pipeline.events().onRejected(getName(), model, reason, rejection);
        }
    }

    /**
     * The run-time state of one model of a client, or of one deployment of a model (named
     * {@code MODEL@DEPLOYMENT}, with its own limiter, circuit and totals).
     */
    public static final class ThrottledModel {

        final String name;

        final ModelLimiter limiter;

        final ModelTotals totals = new ModelTotals();

        final ModelCircuit circuit;

        final @Nullable Long contextWindow;

        final @Nullable String deploymentOf;

        final @Nullable DeploymentSettings deployment;

        final List<ThrottledModel> deployments;

        ThrottledModel(String name, ModelLimiter limiter, ModelCircuit circuit, @Nullable Long contextWindow,
                @Nullable String deploymentOf, @Nullable DeploymentSettings deployment,
                List<ThrottledModel> deployments) {
            this.name = name;
            this.limiter = limiter;
            this.circuit = circuit;
            this.contextWindow = contextWindow;
            this.deploymentOf = deploymentOf;
            this.deployment = deployment;
            this.deployments = List.copyOf(deployments);
        }

        public String getName() {
            return this.name;
        }

        public ModelLimiter getLimiter() {
            return this.limiter;
        }

        public ModelTotals getTotals() {
            return this.totals;
        }

        /**
         * The circuit of this client and model.
         * @return the circuit
         */
        public ModelCircuit getCircuit() {
            return this.circuit;
        }

        /**
         * The model's context window
         * ({@code llm.throttle.clients.NAME.models.MODEL.context-window}).
         * @return the window in tokens, or {@code null} when not configured
         */
        public @Nullable Long getContextWindow() {
            return this.contextWindow;
        }

        /**
         * The deployments serving this model, each with its own limiter, circuit and
         * totals, named {@code MODEL@DEPLOYMENT}.
         * @return the deployments in configuration order, empty when the model has none
         */
        public List<ThrottledModel> getDeployments() {
            return this.deployments;
        }

        /**
         * The model this state is a deployment of.
         * @return the model, or {@code null} when this is a model
         */
        public @Nullable String getDeploymentOf() {
            return this.deploymentOf;
        }

        /**
         * The settings of this deployment.
         * @return the settings, or {@code null} when this is a model
         */
        public @Nullable DeploymentSettings getDeployment() {
            return this.deployment;
        }

    }

}
