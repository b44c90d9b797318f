package io.github.llmthrottle.client;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.ContextWindowExceededException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.client.ThrottleObserver.CallOutcome;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.observation.LlmThrottleAttemptObservationContext;
import io.github.llmthrottle.observation.LlmThrottleCallObservationContext;
import io.github.llmthrottle.provider.LlmRequest;
import io.github.llmthrottle.provider.LogText;
import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.retry.CallDeadline;
import io.github.llmthrottle.retry.RetryableResponseException;
import io.micrometer.observation.Observation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One logical call through a {@link ThrottledClient}, from the request to its settled
 * response: the per-call record (model, context, admission request, the adapter's
 * exchange) and the steps of each attempt. In order: the model's context window (checked
 * once, before anything else), the circuit's permission, admission (priority queue,
 * buckets, concurrency, tenant), the HTTP attempt, classification of the response,
 * calibration from its headers, the model-wide pause after a 429, settlement of the
 * tokens from the JSON body or the stream's events, and the events every observer
 * (totals, metrics, health) sees. Retries are the
 * {@link io.github.llmthrottle.retry.RetryEngine}'s, around {@link #attempt(int)}.
 * <p>
 * A model served by several deployments is attempted on one of them at a time
 * ({@link DeploymentRouting}): the one that admits the call soonest; when it fails with a
 * retryable answer or I/O error, the next one takes the same attempt at once, and only
 * when every deployment failed does the retry engine back off. Call-level events (the
 * call, its rejection) are the model's; attempt-level ones (admission, attempts, usage)
 * are the deployment's, under {@code MODEL@DEPLOYMENT}.
 * <p>
 * The call is one {@code llm.throttle.call} observation, and each attempt one
 * {@code llm.throttle.attempt} nested in it from its admission on, so that a trace shows
 * the queue wait, each attempt and each back-off sleep apart. A streamed call's
 * observation ends with its stream.
 *
 * @param <R> the adapter's response type
 */
final class ThrottledCall<R extends ProviderResponse> {

    private static final Log logger = LogFactory.getLog(ThrottledCall.class);

    private static final ThrottleContext.Scope NO_SCOPE = () -> {
    };

    final ThrottledClient client;

    final ProviderExchange<R> exchange;

    private final ProviderRequest request;

    /** Deployments of the model that failed in this call, tried after the others. */
    private final Set<ThrottledModel> failedDeployments = ConcurrentHashMap.newKeySet();

    final LlmRequest llmRequest;

    /** The estimated input tokens of the whole prompt, cached prefix included. */
    private final long promptTokens;

    final ThrottledModel model;

    final AdmissionRequest admission;

    private final ThrottleContext.@Nullable Scope scope;

    final boolean streaming;

    private final long startNanos;

    /** The HTTP client's limit on the whole call, or null when it sets none. */
    private final @Nullable CallDeadline deadline;

    /** This call's observation: {@link Observation#NOOP} when nobody listens. */
    private Observation observation = Observation.NOOP;

    /** What the observation knows, or {@code null} when nobody listens. */
    private @Nullable LlmThrottleCallObservationContext observed;

    /** When the last attempt ended, on the client's clock: the back-off starts there. */
    private long lastAttemptEnded = -1;

    ThrottledCall(ThrottledClient client, ProviderRequest request, ProviderExchange<R> exchange) {
        this.client = client;
        this.exchange = exchange;
        this.request = request;
        this.startNanos = client.time.nanoTime();
        this.deadline = (request.callTimeout() != null) ? CallDeadline.of(request.callTimeout(), this.startNanos)
                : null;
        this.llmRequest = client.requestReader.read(request.body());
        this.streaming = request.streaming() || this.llmRequest.stream();
        ThrottleContext context = ThrottleContext.current();
        if (context != null && !context.getClient().equals(client.getName())) {
            context = null;
        }
        String modelName = modelOf(context);
        this.model = client.model(modelName);
        long estimated = client.estimator.estimateInputTokens(modelName, this.llmRequest);
        // the provider's own count, when the client asks for one (the whole prompt: it
        // does not know of caching)
        this.promptTokens = client.exactCounts.inputTokens(modelName, request, this.llmRequest, estimated);
        // what the provider will count: not the prefix it is expected to read from its
        // prompt cache
        LlmRequest counted = client.promptCache.counted(modelName, this.llmRequest);
        long inputTokens = (counted == this.llmRequest) ? this.promptTokens : Math.max(0,
                this.promptTokens - (estimated - client.estimator.estimateInputTokens(modelName, counted)));
        Long maxOutput = this.llmRequest.maxOutputTokens();
        Priority priority = (context != null) ? context.getPriority() : Priority.NORMAL;
        String tenant = (context != null && context.getTenant() != null) ? context.getTenant()
                : client.tenantResolver.resolveTenant(request);
        Duration maxWait = (context != null) ? context.getMaxWait() : null;
        // a call that waits may find its prompt's prefix cached by then
        LongSupplier recount = this.llmRequest.cachePrefixes().isEmpty() ? null : () -> recount(modelName);
        this.admission = new AdmissionRequest(priority, tenant, inputTokens, (maxOutput != null) ? maxOutput : 0,
                maxWait, recount);
        // a tenant from the TenantResolver is made current for the call, so observers
        // (metrics) see it too
        this.scope = (context == null && tenant != null)
                ? ThrottleContext.open(new ThrottleContext(client.getName(), modelName, priority, tenant, 0, null))
                : null;
    }

    /**
     * The input the provider will count now, for a call that waits for admission (under
     * the limiter's lock: an estimator that fails leaves the estimate as it was).
     */
    private long recount(String modelName) {
        try {
            return this.client.estimator.estimateInputTokens(modelName,
                    this.client.promptCache.counted(modelName, this.llmRequest));
        }
        catch (RuntimeException ex) {
            return -1;
        }
    }

    /**
     * The model the call is counted against: the configured model the request names (by
     * any of its names: the body is sent as it is), the invocation's, or the default.
     */
    private String modelOf(@Nullable ThrottleContext context) {
        String requested = this.llmRequest.model();
        if (requested != null && !requested.isBlank()) {
            return this.client.settings.configuredModelOf(requested);
        }
        if (context != null) {
            return context.getModel();
        }
        String defaultModel = this.client.settings.defaultModel();
        return (defaultModel != null) ? defaultModel : "default";
    }

    /**
     * Runs the call to its end: attempts and retries, then one call event.
     * @return the final response
     * @throws IOException an I/O error that is not retried, or an interrupt
     */
    ThrottledResponse<R> run() throws IOException {
        try (ThrottleContext.Scope scope = (this.scope != null) ? this.scope : NO_SCOPE) {
            startObservation();
            try (Observation.Scope observing = this.observation.openScope()) {
                return execute();
            }
        }
    }

    private ThrottledResponse<R> execute() throws IOException {
        try {
            checkContextWindow();
            // inside a @Throttled invocation no server wait beyond its max-wait is slept:
            // the call fails with RetryAfterTooLongException and the invocation moves on
            // to its next model
            ThrottledResponse<R> response = this.client.retryEngine.execute(this.client.getName(), this.model.name,
                    this.admission.maxWait(), this.deadline, this::attempt);
            boolean succeeded = response.status() / 100 == 2;
            callEnded(succeeded ? CallOutcome.SUCCESS : CallOutcome.FAILED);
            if (!response.isStreamed()) {
                // a stream's call goes on until its stream ends (streamEnded)
                completed(succeeded ? CallOutcome.SUCCESS : CallOutcome.FAILED,
                        succeeded ? null : Integer.toString(response.status()),
                        succeeded ? null : () -> errorOf(response));
            }
            return response;
        }
        catch (LlmThrottleException ex) {
            logger.warn(LogText.escape("Call to client '" + this.client.getName() + "', model '" + this.model.name
                    + "' failed: " + ex.getMessage()));
            RejectionReason rejection = ex.getRejectionReason();
            if (rejection != null) {
                this.client.events.onRejected(this.client.getName(), this.model.name, rejection, ex);
                LlmThrottleCallObservationContext observed = this.observed;
                if (observed != null) {
                    observed.setRejection(rejection);
                }
            }
            CallOutcome outcome = (rejection != null) ? CallOutcome.REJECTED : CallOutcome.FAILED;
            callEnded(outcome);
            completed(outcome, ex.getClass().getName(), () -> ex);
            throw ex;
        }
        catch (IOException | RuntimeException | Error ex) {
            logger.warn(LogText.escape(
                    "Call to client '" + this.client.getName() + "', model '" + this.model.name + "' failed: " + ex));
            callEnded(CallOutcome.FAILED);
            completed(CallOutcome.FAILED, ex.getClass().getName(), () -> ex);
            throw ex;
        }
    }

    /**
     * Refuses, before anything is sent, a request that does not fit its model's context
     * window: its estimated input (the whole prompt, cached or not) plus the output it
     * reserves.
     */
    private void checkContextWindow() {
        Long window = this.model.contextWindow;
        if (window != null && this.promptTokens + this.admission.outputTokens() > window) {
            throw new ContextWindowExceededException(this.client.getName(), this.model.name, this.promptTokens,
                    this.admission.outputTokens(), window);
        }
    }

    private void callEnded(CallOutcome outcome) {
        this.client.events.onCall(this.client.getName(), this.model.name, outcome, since(this.startNanos));
    }

    /**
     * The call is over for its caller: the completion event and the end of its
     * observation.
     * @param outcome how it ended
     * @param errorType why it failed, or {@code null}
     * @param error the failure for the observation, built only when someone listens, or
     * {@code null} when it succeeded
     */
    private void completed(CallOutcome outcome, @Nullable String errorType, @Nullable Supplier<Throwable> error) {
        this.client.events.onCallCompleted(this.client.getName(), this.model.name, since(this.startNanos), errorType);
        LlmThrottleCallObservationContext observed = this.observed;
        if (observed != null) {
            observed.setOutcome(outcome.tag());
            if (error != null) {
                this.observation.error(error.get());
            }
        }
        this.observation.stop();
    }

    /**
     * The stream of a streamed call ended: the call is over for its caller.
     * @param errorType the type of the error event inside the stream, or {@code null}
     * @param error the failure the error event stands for, or {@code null}
     */
    void streamEnded(@Nullable String errorType, @Nullable Throwable error) {
        completed((errorType != null) ? CallOutcome.FAILED : CallOutcome.SUCCESS, errorType,
                (error != null) ? () -> error : null);
    }

    /** The first bytes of the call's stream reached the caller. */
    void firstChunk() {
        this.client.events.onFirstChunk(this.client.getName(), this.model.name, since(this.startNanos));
    }

    private void startObservation() {
        if (!this.client.observations.isObserving()) {
            return;
        }
        Observation observation = this.client.observations
            .call(() -> new LlmThrottleCallObservationContext(this.client.getName(), this.model.name,
                    this.admission.priority(), this.streaming));
        if (!observation.isNoop()) {
            this.observed = (LlmThrottleCallObservationContext) observation.getContext();
            this.observation = observation.start();
        }
    }

    /**
     * The observation of an attempt that was just admitted, started (or
     * {@link Observation#NOOP}), with the back-off slept since the previous attempt.
     * @param number the attempt's number, from 1
     * @param queueWait how long the attempt waited for admission
     * @param queuedAt when it began to wait
     * @return the attempt's observation
     */
    Observation startAttemptObservation(int number, Duration queueWait, long queuedAt) {
        if (!this.client.observations.isObserving()) {
            return Observation.NOOP;
        }
        LlmThrottleCallObservationContext observed = this.observed;
        if (observed != null) {
            observed.setAttempts(number);
        }
        Duration backOff = (this.lastAttemptEnded >= 0) ? Duration.ofNanos(queuedAt - this.lastAttemptEnded) : null;
        return this.client.observations
            .attempt(() -> new LlmThrottleAttemptObservationContext(this.client.getName(), this.model.name,
                    this.admission.priority(), number, queueWait, backOff), this.observation)
            .start();
    }

    /** An attempt that is not streamed ended: the next one's back-off starts now. */
    void attemptEnded() {
        this.lastAttemptEnded = this.client.time.nanoTime();
    }

    /**
     * A response came, for the call's observation.
     * @param requestId the provider's request id, or {@code null}
     */
    void observeResponse(@Nullable String requestId) {
        LlmThrottleCallObservationContext observed = this.observed;
        if (observed != null && requestId != null) {
            observed.setRequestId(requestId);
        }
    }

    /**
     * The provider counted the call's tokens, for the call's observation.
     * @param usage the tokens
     */
    void observeUsage(Usage usage) {
        LlmThrottleCallObservationContext observed = this.observed;
        if (observed != null) {
            observed.setUsage(usage);
        }
    }

    /** The exception the caller's HTTP library makes of an error response. */
    private Throwable errorOf(ThrottledResponse<R> response) {
        byte[] body = response.bufferedBody();
        return response.response().toException((body != null) ? body : new byte[0]);
    }

    private ThrottledResponse<R> attempt(int retryCount) throws IOException {
        if (this.model.deployments.isEmpty() || !this.exchange.canRedirect()) {
            return attempt(this.model, null, retryCount + 1);
        }
        List<ThrottledModel> order = DeploymentRouting.order(this.client.getName(), this.model.name,
                this.model.deployments, this.admission, this.failedDeployments);
        for (int i = 0;; i++) {
            ThrottledModel deployment = order.get(i);
            boolean last = i + 1 == order.size();
            try {
                return attempt(deployment, DeploymentRouting.target(this.client.settings, this.request, deployment),
                        retryCount + 1);
            }
            catch (CircuitOpenException ex) {
                // opened since the order was made
                if (last) {
                    throw ex;
                }
            }
            catch (LlmThrottleException ex) {
                // this deployment's own limiter refused the call (its queue is full, its
                // wait too long, its limit too low): another deployment may take it
                if (last || !isOwnAdmission(ex.getRejectionReason())) {
                    throw ex;
                }
                logger.debug(LogText.escape("Client '" + this.client.getName() + "', deployment '" + deployment.name
                        + "' cannot admit the call (" + ex.getRejectionReason() + "); trying deployment '"
                        + order.get(i + 1).name + "'"));
            }
            catch (RetryableResponseException ex) {
                // another deployment takes the attempt at once: it has its own limits and
                // capacity, so there is nothing to wait for
                this.failedDeployments.add(deployment);
                if (last) {
                    throw ex;
                }
                logger.debug(LogText.escape("Client '" + this.client.getName() + "', deployment '" + deployment.name
                        + "': " + ex.getClassification().describe() + "; trying deployment '" + order.get(i + 1).name
                        + "' at once"));
            }
            catch (IOException ex) {
                if (last || !this.client.classifier.classify(ex).retryable()) {
                    throw ex;
                }
                this.failedDeployments.add(deployment);
                logger.debug(LogText.escape("Client '" + this.client.getName() + "', deployment '" + deployment.name
                        + "': I/O error (" + ex + "); trying deployment '" + order.get(i + 1).name + "' at once"));
            }
        }
    }

    /**
     * Whether a refusal is one deployment's own admission (its queue, its limits), which
     * another deployment does not share, rather than the model's (its quotas).
     */
    private static boolean isOwnAdmission(@Nullable RejectionReason reason) {
        return reason == RejectionReason.QUEUE_FULL || reason == RejectionReason.MAX_WAIT;
    }

    /**
     * One attempt on {@code target}: the model itself, or one of its deployments.
     * @param number the attempt's number, from 1 (a deployment that takes over at once
     * has the same number)
     */
    private ThrottledResponse<R> attempt(ThrottledModel target, @Nullable ProviderTarget redirect, int number)
            throws IOException {
        // Before admission, so that an open circuit fails fast instead of queueing. The
        // permission goes with the attempt's outcome to the events; a stream takes it
        // along until it ends.
        ThrottledAttempt<R> attempt = new ThrottledAttempt<>(this, target, redirect, target.circuit.acquire(), number);
        try {
            return attempt.run();
        }
        finally {
            attempt.releaseCircuitUnlessHandedOver();
        }
    }

    /**
     * What this attempt asks of the model's limits: the call's admission request, with a
     * wait that ends in time for the HTTP client's call timeout.
     * @return the admission request
     */
    AdmissionRequest admissionNow() {
        if (this.deadline == null) {
            return this.admission;
        }
        Duration maxWait = (this.admission.maxWait() != null) ? this.admission.maxWait()
                : this.model.limiter.defaultMaxWait();
        Duration left = this.deadline.leftForWaiting(this.client.time.nanoTime());
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
        return AdmissionTimeoutException.withinCallTimeout(this.client.getName(), this.model.name,
                this.deadline.callTimeout(), failure.getRetryAfter());
    }

    Duration since(long startNanos) {
        return Duration.ofNanos(this.client.time.nanoTime() - startNanos);
    }

}
