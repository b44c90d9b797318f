package io.github.llmthrottle.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.QueueFullException;
import io.github.llmthrottle.RetryAfterTooLongException;
import io.github.llmthrottle.TenantQuotaExceededException;
import io.github.llmthrottle.client.ThrottleObserver.CallOutcome;
import io.github.llmthrottle.client.ThrottleObserver.Rejection;
import io.github.llmthrottle.limit.DemandExceedsLimitException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.provider.LlmRequest;
import io.github.llmthrottle.provider.RateLimitHeaders;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.provider.RequestBodyReader;
import io.github.llmthrottle.provider.TokenEstimator;
import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.provider.UsageReader;
import io.github.llmthrottle.retry.Classification;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.retry.ResponseClassifier;
import io.github.llmthrottle.retry.RetryAfter;
import io.github.llmthrottle.retry.RetryEngine;
import io.github.llmthrottle.retry.RetryableResponseException;
import io.github.llmthrottle.routing.CircuitSettings;
import io.github.llmthrottle.routing.ModelCircuit;
import io.github.llmthrottle.time.ClockTimeSource;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpResponse;

/**
 * One configured client at run time: turns each request into admission, attempts, retries and
 * settlement of its tokens.
 */
public final class ThrottledClient {

    private static final int MAX_ERROR_BODY = 1024 * 1024;

    private static final ThrottleContext.Scope NO_SCOPE = () -> {
    };

    private final ClientSettings settings;

    private final LimiterRegistry limiters;

    private final RetryEngine retryEngine;

    private final ResponseClassifier classifier;

    private final TokenEstimator estimator;

    private final RequestBodyReader requestReader;

    private final UsageReader usageReader;

    private final Clock clock;

    private final TenantResolver tenantResolver;

    private final ThrottleObserver observer;

    private final CircuitSettings circuitSettings;

    private final Map<String, ThrottledModel> models = new ConcurrentHashMap<>();

    ThrottledClient(ClientSettings settings, LimiterRegistry limiters, RetryEngine retryEngine,
            ResponseClassifier classifier, TokenEstimator estimator, TenantResolver tenantResolver,
            ThrottleObserver observer, RequestBodyReader requestReader, UsageReader usageReader,
            CircuitSettings circuitSettings, Clock clock) {
        this.circuitSettings = circuitSettings;
        this.tenantResolver = tenantResolver;
        this.observer = observer;
        this.settings = settings;
        this.limiters = limiters;
        this.retryEngine = retryEngine;
        this.classifier = classifier;
        this.estimator = estimator;
        this.requestReader = requestReader;
        this.usageReader = usageReader;
        this.clock = clock;
        settings.models().keySet().forEach(this::model);
    }

    public ClientSettings getSettings() {
        return this.settings;
    }

    public String getName() {
        return this.settings.name();
    }

    /**
     * The models seen so far: every configured model, and any other model a request named.
     * @return the models by name
     */
    public Map<String, ThrottledModel> getModels() {
        return Map.copyOf(this.models);
    }

    /**
     * The run-time state of {@code model}, created on first use.
     * @param model the model name
     * @return its state
     */
    public ThrottledModel model(String model) {
        return this.models.computeIfAbsent(model,
                (name) -> new ThrottledModel(name, this.limiters.limiter(this.settings.name(), name),
                        new ModelCircuit(this.settings.name(), name, this.circuitSettings,
                                ClockTimeSource.of(this.clock))));
    }

    /**
     * Records that a {@code @Throttled} invocation was routed away from {@code from}: counts a
     * fallback of that model and tells the observers.
     * @param from the model that could not take the call
     * @param to the model tried next
     * @param cause why
     */
    public void recordFallback(String from, String to, Throwable cause) {
        model(from).totals.recordFallback();
        this.observer.onFallback(this.settings.name(), from, to, cause);
    }

    /**
     * Records that a {@code @Throttled} invocation refused {@code model} before calling it (its
     * circuit was open, or admission would have taken longer than the invocation's max-wait).
     * @param model the model refused
     * @param rejection the exception the invocation would have seen
     */
    public void recordRejection(String model, LlmThrottleException rejection) {
        Rejection reason = rejectionOf(rejection);
        if (reason != null) {
            model(model).totals.rejected.increment();
            this.observer.onRejected(this.settings.name(), model, reason, rejection);
        }
    }

    ClientHttpResponse exchange(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        long start = System.nanoTime();
        LlmRequest llmRequest = this.requestReader.read(body);
        ThrottleContext context = ThrottleContext.current();
        if (context != null && !context.getClient().equals(this.settings.name())) {
            context = null;
        }
        String modelName = modelOf(llmRequest, context);
        ThrottledModel model = model(modelName);
        model.totals.calls.increment();
        long inputTokens = this.estimator.estimateInputTokens(modelName, llmRequest);
        long outputTokens = (llmRequest.maxOutputTokens() != null) ? llmRequest.maxOutputTokens() : 0;
        Priority priority = (context != null) ? context.getPriority() : Priority.NORMAL;
        String tenant = (context != null && context.getTenant() != null) ? context.getTenant()
                : this.tenantResolver.resolveTenant(request);
        Duration maxWait = (context != null) ? context.getMaxWait() : null;
        AdmissionRequest admission = new AdmissionRequest(priority, tenant, inputTokens, outputTokens, maxWait);
        // a tenant from the TenantResolver is made current for the call, so observers (metrics) see it too
        ThrottleContext.Scope scope = (context == null && tenant != null)
                ? ThrottleContext.open(new ThrottleContext(this.settings.name(), modelName, priority, tenant, 0, null))
                : NO_SCOPE;
        try (scope) {
            // inside a @Throttled invocation no server wait beyond its max-wait is slept: the call
            // fails with RetryAfterTooLongException and the invocation moves on to its next model
            ClientHttpResponse response = this.retryEngine.execute(this.settings.name(), modelName, maxWait,
                    (retryCount) -> attempt(model, llmRequest, admission, request, body, execution, retryCount));
            boolean succeeded = response.getStatusCode().is2xxSuccessful();
            (succeeded ? model.totals.succeeded : model.totals.failed).increment();
            this.observer.onCall(this.settings.name(), modelName, succeeded ? CallOutcome.SUCCESS : CallOutcome.FAILED,
                    elapsed(start));
            return response;
        }
        catch (LlmThrottleException ex) {
            Rejection rejection = rejectionOf(ex);
            if (rejection != null) {
                model.totals.rejected.increment();
                this.observer.onRejected(this.settings.name(), modelName, rejection, ex);
            }
            model.totals.failed.increment();
            this.observer.onCall(this.settings.name(), modelName,
                    (rejection != null) ? CallOutcome.REJECTED : CallOutcome.FAILED, elapsed(start));
            throw ex;
        }
        catch (IOException | RuntimeException | Error ex) {
            model.totals.failed.increment();
            this.observer.onCall(this.settings.name(), modelName, CallOutcome.FAILED, elapsed(start));
            throw ex;
        }
    }

    private static @Nullable Rejection rejectionOf(LlmThrottleException ex) {
        if (ex instanceof QueueFullException) {
            return Rejection.QUEUE_FULL;
        }
        if (ex instanceof TenantQuotaExceededException) {
            return Rejection.TENANT_QUOTA;
        }
        if (ex instanceof AdmissionTimeoutException || ex instanceof DemandExceedsLimitException) {
            return Rejection.MAX_WAIT;
        }
        if (ex instanceof CircuitOpenException) {
            return Rejection.CIRCUIT_OPEN;
        }
        if (ex instanceof RetryAfterTooLongException) {
            return Rejection.RETRY_AFTER_TOO_LONG;
        }
        return null;
    }

    private static Duration elapsed(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    private String modelOf(LlmRequest request, @Nullable ThrottleContext context) {
        if (request.model() != null && !request.model().isBlank()) {
            return request.model();
        }
        if (context != null) {
            return context.getModel();
        }
        return (this.settings.defaultModel() != null) ? this.settings.defaultModel() : "default";
    }

    private ClientHttpResponse attempt(ThrottledModel model, LlmRequest llmRequest, AdmissionRequest admission,
            HttpRequest request, byte[] body, ClientHttpRequestExecution execution, int retryCount)
            throws IOException {
        if (retryCount > 0) {
            model.totals.retries.increment();
        }
        // Before admission, so that an open circuit fails fast instead of queueing; the permission
        // gets the attempt's outcome where observers get it, or is released without one.
        ModelCircuit.Permission circuit = model.circuit.acquire();
        try {
            return attempt(model, circuit, llmRequest, admission, request, body, execution);
        }
        finally {
            circuit.release();
        }
    }

    private ClientHttpResponse attempt(ThrottledModel model, ModelCircuit.Permission circuit, LlmRequest llmRequest,
            AdmissionRequest admission, HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        long queued = System.nanoTime();
        Permit permit = acquire(model, admission);
        long sent = System.nanoTime();
        this.observer.onAdmitted(this.settings.name(), model.name, admission.priority(),
                Duration.ofNanos(sent - queued));
        model.totals.attempts.increment();
        ClientHttpResponse response;
        try {
            response = execution.execute(request, body);
        }
        catch (IOException ex) {
            permit.settle(admission.inputTokens(), 0);
            permit.release(Permit.Outcome.DROPPED);
            circuit.record(Classification.Outcome.IO_ERROR);
            this.observer.onAttempt(this.settings.name(), model.name, Classification.Outcome.IO_ERROR, 0, elapsed(sent));
            throw ex;
        }
        catch (RuntimeException | Error ex) {
            permit.release(Permit.Outcome.IGNORED);
            throw ex;
        }
        try {
            return handle(model, circuit, llmRequest, admission, permit, response, sent);
        }
        catch (IOException | RuntimeException | Error ex) {
            permit.release(Permit.Outcome.IGNORED);
            response.close();
            throw ex;
        }
    }

    private Permit acquire(ThrottledModel model, AdmissionRequest admission) throws IOException {
        try {
            return model.limiter.acquire(admission);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("Interrupted while waiting for admission to client '"
                    + this.settings.name() + "', model '" + model.name + "'");
            interrupted.initCause(ex);
            throw interrupted;
        }
    }

    private ClientHttpResponse handle(ThrottledModel model, ModelCircuit.Permission circuit, LlmRequest llmRequest,
            AdmissionRequest admission, Permit permit, ClientHttpResponse response, long sent) throws IOException {
        HttpStatusCode status = response.getStatusCode();
        HttpHeaders headers = response.getHeaders();
        if (status.is2xxSuccessful()) {
            circuit.record(Classification.Outcome.SUCCESS);
            this.observer.onAttempt(this.settings.name(), model.name, Classification.Outcome.SUCCESS, status.value(),
                    elapsed(sent));
            calibrate(model, RateLimitHeaders.parse(this.settings.provider(), headers, this.clock.instant()));
            return success(model, llmRequest, permit, response, status, headers);
        }
        byte[] errorBody = readAtMost(response.getBody(), MAX_ERROR_BODY);
        String statusText = response.getStatusText();
        response.close();
        Classification classification = this.classifier.classify(status.value(), headers, errorBody);
        circuit.record(classification.outcome());
        this.observer.onAttempt(this.settings.name(), model.name, classification.outcome(), status.value(),
                elapsed(sent));
        RateLimitSnapshot rateLimits = classification.rateLimits();
        if (classification.outcome() == Outcome.RATE_LIMITED && rateLimits != null && !rateLimits.isEmpty()) {
            model.limiter.calibrateRejected(rateLimits);
        }
        else {
            calibrate(model, rateLimits);
        }
        countFailure(model, classification);
        Duration serverWait = classification.serverWait();
        if (classification.outcome() == Outcome.RATE_LIMITED && serverWait != null) {
            model.limiter.pause(serverWait);
        }
        if (classification.retryable()) {
            permit.settle(admission.inputTokens(), 0);
            permit.release(isCapacitySignal(classification) ? Permit.Outcome.DROPPED : Permit.Outcome.IGNORED);
            throw RetryableResponseException.forResponse(classification, status, statusText, headers, errorBody,
                    StandardCharsets.UTF_8);
        }
        permit.settle(0, 0);
        permit.release(Permit.Outcome.IGNORED);
        return new BufferedResponse(status, statusText, headers, errorBody);
    }

    private static boolean isCapacitySignal(Classification classification) {
        return switch (classification.outcome()) {
            case RATE_LIMITED, OVERLOADED, TIMEOUT -> true;
            default -> classification.status() == 503;
        };
    }

    private static void calibrate(ThrottledModel model, @Nullable RateLimitSnapshot snapshot) {
        if (snapshot != null && !snapshot.isEmpty()) {
            model.limiter.calibrate(snapshot);
        }
    }

    private ClientHttpResponse success(ThrottledModel model, LlmRequest llmRequest, Permit permit,
            ClientHttpResponse response, HttpStatusCode status, HttpHeaders headers) throws IOException {
        MediaType contentType = headers.getContentType();
        boolean eventStream = contentType != null && MediaType.TEXT_EVENT_STREAM.isCompatibleWith(contentType);
        if (eventStream || llmRequest.stream()) {
            return new StreamingUsageResponse(response, this.usageReader, (outcome) -> {
                Usage usage = outcome.usage();
                if (usage != null) {
                    permit.settle(usage.inputTokens(), usage.outputTokens());
                    recordUsage(model, llmRequest, usage);
                }
                if (outcome.errorType() != null) {
                    if (outcome.errorType().startsWith("rate_limit")) {
                        model.totals.rateLimited.increment();
                        // a rate limit inside a 200 stream (Azure sends retry-after with it): pause the model too
                        RetryAfter serverWait = RetryAfter.fromHeaders(headers, this.clock);
                        if (serverWait != null) {
                            model.limiter.pause(serverWait.duration());
                        }
                    }
                    else if (outcome.errorType().startsWith("overloaded")) {
                        model.totals.overloaded.increment();
                    }
                    permit.release(Permit.Outcome.DROPPED);
                }
                else {
                    permit.release(outcome.complete() ? Permit.Outcome.SUCCESS : Permit.Outcome.IGNORED);
                }
            });
        }
        byte[] body;
        String statusText;
        try (response) {
            statusText = response.getStatusText();
            body = response.getBody().readAllBytes();
        }
        Usage usage = this.usageReader.read(body);
        if (usage != null) {
            permit.settle(usage.inputTokens(), usage.outputTokens());
            recordUsage(model, llmRequest, usage);
        }
        permit.release(Permit.Outcome.SUCCESS);
        return new BufferedResponse(status, statusText, headers, body);
    }

    private void recordUsage(ThrottledModel model, LlmRequest llmRequest, Usage usage) {
        model.totals.inputTokens.add(usage.inputTokens());
        model.totals.outputTokens.add(usage.outputTokens());
        this.observer.onUsage(this.settings.name(), model.name, usage);
        this.estimator.observe(model.name, llmRequest, usage.inputTokens());
    }

    private static void countFailure(ThrottledModel model, Classification classification) {
        switch (classification.outcome()) {
            case RATE_LIMITED -> model.totals.rateLimited.increment();
            case OVERLOADED -> model.totals.overloaded.increment();
            default -> {
            }
        }
    }

    private static byte[] readAtMost(InputStream in, int max) throws IOException {
        try (in) {
            return in.readNBytes(max);
        }
    }

    /**
     * The run-time state of one model of a client.
     */
    public static final class ThrottledModel {

        private final String name;

        private final ModelLimiter limiter;

        private final ModelTotals totals = new ModelTotals();

        private final ModelCircuit circuit;

        ThrottledModel(String name, ModelLimiter limiter, ModelCircuit circuit) {
            this.name = name;
            this.limiter = limiter;
            this.circuit = circuit;
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

    }

}
