package io.github.llmthrottle.client;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.limit.TokenQuotas;
import io.github.llmthrottle.observation.LlmThrottleObservations;
import io.github.llmthrottle.provider.EndpointClass;
import io.github.llmthrottle.provider.RequestBodyReader;
import io.github.llmthrottle.provider.TokenEstimator;
import io.github.llmthrottle.provider.UsageReader;
import io.github.llmthrottle.retry.BackOff;
import io.github.llmthrottle.retry.ResponseClassifier;
import io.github.llmthrottle.retry.RetryEngine;
import io.github.llmthrottle.routing.CircuitSettings;
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

    final ClientSettings settings;

    final LimiterRegistry limiters;

    final RetryEngine retryEngine;

    /** Retries token counts, which report to no observer: they are not the model's. */
    private final RetryEngine tokenCountRetries;

    final ResponseClassifier classifier;

    final TokenEstimator estimator;

    /** The provider's counts of large requests, for a client that asks for them. */
    final ExactTokenCounts exactCounts;

    final RequestBodyReader requestReader;

    final UsageReader usageReader;

    /** What the provider's prompt cache is expected to hold for this client's models. */
    final PromptCache promptCache;

    final TimeSource time;

    final TenantResolver tenantResolver;

    /** Every event of this client: the totals first, then the application's observers. */
    final ThrottleObserver events;

    /** Where calls and attempts are observed ({@code llm.throttle.call}, ...attempt). */
    final LlmThrottleObservations observations;

    private final CircuitSettings circuitSettings;

    /** The token quotas over days and months, shared by every client. */
    final TokenQuotas quotas;

    private final Map<String, ThrottledModel> models = new ConcurrentHashMap<>();

    /** Models named in requests but not configured, most recently used last. */
    private final LinkedHashMap<String, ThrottledModel> otherModels = new LinkedHashMap<>(16, 0.75f, true);

    private final ReentrantLock otherModelsLock = new ReentrantLock();

    /** Streamed responses handed out and not ended yet. */
    final Set<StreamSettlement> openStreams = ConcurrentHashMap.newKeySet();

    ThrottledClient(ClientSettings settings, LimiterRegistry limiters, TokenEstimator estimator,
            TenantResolver tenantResolver, ThrottleObserver observer, RequestBodyReader requestReader,
            UsageReader usageReader, CircuitSettings circuitSettings, TimeSource time) {
        this(settings, limiters, estimator, tenantResolver, observer, LlmThrottleObservations.NONE, requestReader,
                usageReader, circuitSettings, time, TokenQuotas.none());
    }

    ThrottledClient(ClientSettings settings, LimiterRegistry limiters, TokenEstimator estimator,
            TenantResolver tenantResolver, ThrottleObserver observer, RequestBodyReader requestReader,
            UsageReader usageReader, CircuitSettings circuitSettings, TimeSource time, TokenQuotas quotas) {
        this(settings, limiters, estimator, tenantResolver, observer, LlmThrottleObservations.NONE, requestReader,
                usageReader, circuitSettings, time, quotas);
    }

    ThrottledClient(ClientSettings settings, LimiterRegistry limiters, TokenEstimator estimator,
            TenantResolver tenantResolver, ThrottleObserver observer, LlmThrottleObservations observations,
            RequestBodyReader requestReader, UsageReader usageReader, CircuitSettings circuitSettings,
            TimeSource time) {
        this(settings, limiters, estimator, tenantResolver, observer, observations, requestReader, usageReader,
                circuitSettings, time, TokenQuotas.none());
    }

    ThrottledClient(ClientSettings settings, LimiterRegistry limiters, TokenEstimator estimator,
            TenantResolver tenantResolver, ThrottleObserver observer, LlmThrottleObservations observations,
            RequestBodyReader requestReader, UsageReader usageReader, CircuitSettings circuitSettings, TimeSource time,
            TokenQuotas quotas) {
        this.quotas = quotas;
        this.settings = settings;
        this.observations = observations;
        this.limiters = limiters;
        this.classifier = new ResponseClassifier(settings.provider(), time.clock());
        this.estimator = estimator;
        this.exactCounts = ExactTokenCounts.of(settings, time);
        this.tenantResolver = tenantResolver;
        this.requestReader = requestReader;
        this.usageReader = usageReader;
        this.circuitSettings = circuitSettings;
        this.time = time;
        this.promptCache = new PromptCache(time);
        this.events = new CompositeThrottleObserver(
                List.of(new TotalsObserver((model) -> model(model).totals), observer));
        // not ThreadLocalRandom.current() kept: see BackOff.THREAD_LOCAL_RANDOM
        this.retryEngine = new RetryEngine(settings.retry(), time, BackOff.THREAD_LOCAL_RANDOM, this.events);
        this.tokenCountRetries = new RetryEngine(settings.retry(), time, BackOff.THREAD_LOCAL_RANDOM);
        // every configured model (and its deployments) up front, so that newModel never
        // runs inside a computeIfAbsent of the same map
        settings.models().keySet().forEach((model) -> this.models.put(model, newModel(model)));
    }

    public ClientSettings getSettings() {
        return this.settings;
    }

    public String getName() {
        return this.settings.name();
    }

    /**
     * The models seen so far: every configured model, the deployments of each (as
     * {@code MODEL@DEPLOYMENT}), and any other model a request named.
     * @return the models by name
     */
    public Map<String, ThrottledModel> getModels() {
        Map<String, ThrottledModel> all = new LinkedHashMap<>(this.models);
        this.otherModelsLock.lock();
        try {
            all.putAll(this.otherModels);
        }
        finally {
            this.otherModelsLock.unlock();
        }
        return Collections.unmodifiableMap(all);
    }

    /**
     * The run-time state of {@code name}, created on first use: a deployment's under its
     * qualified name ({@code MODEL@DEPLOYMENT}), and a configured model's own when
     * {@code name} is one of its other names (an alias, a dated snapshot, see
     * {@link ClientSettings#configuredModelOf}).
     * @param name the model name
     * @return its state
     */
    public ThrottledModel model(String name) {
        // a deployment by its qualified name first: events name the deployment
        ThrottledModel known = this.models.get(name);
        if (known != null) {
            return known;
        }
        String model = this.settings.configuredModelOf(name);
        ThrottledModel configured = this.models.get(model);
        if (configured != null) {
            return configured;
        }
        if (this.settings.models().containsKey(model)) {
            return this.models.computeIfAbsent(model, this::newModel);
        }
        List<ThrottledModel> forgotten = new ArrayList<>();
        ThrottledModel other;
        this.otherModelsLock.lock();
        try {
            other = this.otherModels.get(model);
            if (other == null) {
                other = newModel(model);
                this.otherModels.put(model, other);
                forgetIdleOtherModels(model, forgotten);
            }
        }
        finally {
            this.otherModelsLock.unlock();
        }
        for (ThrottledModel idle : forgotten) {
            this.limiters.forget(this.settings.name(), idle.name);
            this.events.onModelForgotten(this.settings.name(), idle.name);
        }
        return other;
    }

    /**
     * The run-time state of {@code model} when it is tracked, without creating it or
     * counting as a use of it (for readers such as gauges).
     * @param name the model name, or one of a configured model's other names
     * @return its state, or {@code null} when the model is not tracked
     */
    public @Nullable ThrottledModel findModel(String name) {
        // a deployment by its qualified name first: events name the deployment
        ThrottledModel known = this.models.get(name);
        if (known != null) {
            return known;
        }
        String model = this.settings.configuredModelOf(name);
        ThrottledModel configured = this.models.get(model);
        if (configured != null) {
            return configured;
        }
        this.otherModelsLock.lock();
        try {
            // values() in order: get() would count as a use of an access-ordered map
            for (ThrottledModel other : this.otherModels.values()) {
                if (other.name.equals(model)) {
                    return other;
                }
            }
            return null;
        }
        finally {
            this.otherModelsLock.unlock();
        }
    }

    private ThrottledModel newModel(String name) {
        List<ThrottledModel> deployments = new ArrayList<>();
        this.settings.deploymentsOf(name).forEach((deploymentName, deployment) -> {
            String qualified = DeploymentSettings.qualifiedName(name, deploymentName);
            ThrottledModel state = new ThrottledModel(qualified, this.limiters.limiter(this.settings.name(), qualified),
                    new ModelCircuit(this.settings.name(), qualified, this.circuitSettings, this.time), null, name,
                    deployment, List.of());
            // kept with the models: events, the endpoint, health and metrics find it by
            // its qualified name
            this.models.put(qualified, state);
            deployments.add(state);
        });
        return new ThrottledModel(name, this.limiters.limiter(this.settings.name(), name),
                new ModelCircuit(this.settings.name(), name, this.circuitSettings, this.time),
                this.settings.contextWindowOf(name), null, null, deployments);
    }

    /**
     * Forgets the least recently used models that are not configured beyond
     * {@code llm.throttle.max-tracked-names}, except those with calls in flight or
     * waiting: a name a request made up cannot grow memory, the endpoint or the meters
     * without bound ({@code keep} is the one just added).
     */
    private void forgetIdleOtherModels(String keep, List<ThrottledModel> forgotten) {
        Iterator<ThrottledModel> eldest = this.otherModels.values().iterator();
        while (this.otherModels.size() > this.limiters.options().maxTrackedNames() && eldest.hasNext()) {
            ThrottledModel model = eldest.next();
            if (model.name.equals(keep)) {
                continue;
            }
            LimiterState state = model.limiter.state();
            if (state.inFlight() == 0 && state.queued().total() == 0) {
                eldest.remove();
                forgotten.add(model);
            }
        }
    }

    /**
     * What a request to {@code uri} is in this client's dialect: adapters send a
     * {@link EndpointClass#PASS_THROUGH} request on as they would a request to another
     * host, without reading its body, and the rest through {@link #exchange}.
     * @param uri the request's URI
     * @return its class
     */
    public EndpointClass endpointClass(URI uri) {
        return this.settings.provider().classify(uri);
    }

    /**
     * Sends one request through the call pipeline, as its {@link #endpointClass class}
     * says: a model call admitted, attempted, retried and settled as this client's
     * settings say; a token count retried but neither admitted nor charged nor sent to a
     * deployment; anything else sent once, untouched, its body handed over unread.
     * @param <R> the adapter's response type
     * @param request the request
     * @param exchange sends the request once per attempt
     * @return the final response: a success, or an error that is not retried (a 400, a
     * quota 429)
     * @throws IOException an I/O error that is not retried, or an interrupt while waiting
     * @throws LlmThrottleException when the call is refused or retries are exhausted
     */
    public <R extends ProviderResponse> ThrottledResponse<R> exchange(ProviderRequest request,
            ProviderExchange<R> exchange) throws IOException {
        return switch (endpointClass(request.uri())) {
            case MODEL_CALL -> new ThrottledCall<>(this, request, exchange).run();
            case TOKEN_COUNT -> TokenCount.run(this, this.tokenCountRetries, request, exchange);
            case PASS_THROUGH -> ThrottledResponse.unsettled(exchange.execute());
        };
    }

    /**
     * Ends every streamed response whose caller has neither read nor closed it for longer
     * than the client's read timeout, so that its concurrency slot and reservation come
     * back (the response is closed; its attempt ends incomplete). Called periodically by
     * an {@link IdleStreamReaper}.
     * @return how many streams were ended
     */
    public int expireIdleStreams() {
        long timeout = this.settings.readTimeout().toNanos();
        int expired = 0;
        for (StreamSettlement stream : this.openStreams) {
            if (stream.expireIfIdle(timeout)) {
                expired++;
            }
            if (stream.isEnded()) {
                this.openStreams.remove(stream);
            }
        }
        return expired;
    }

    /**
     * Records that a {@code @Throttled} invocation was routed away from {@code from}.
     * @param from the model that could not take the call
     * @param to the model tried next
     * @param cause why
     */
    public void recordFallback(String from, String to, Throwable cause) {
        this.events.onFallback(this.settings.name(), from, to, cause);
    }

    /**
     * Records that a {@code @Throttled} invocation refused {@code model} before calling
     * it (its circuit was open, or admission would have taken longer than the
     * invocation's max-wait).
     * @param model the model refused
     * @param rejection the exception the invocation would have seen
     */
    public void recordRejection(String model, LlmThrottleException rejection) {
        RejectionReason reason = rejection.getRejectionReason();
        if (reason != null) {
            this.events.onRejected(this.settings.name(), model, reason, rejection);
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
