package io.github.llmthrottle.client;

import java.io.IOException;
import java.time.Duration;

import io.github.llmthrottle.ContextWindowExceededException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.client.ThrottleObserver.CallOutcome;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.provider.LlmRequest;
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
 *
 * @param <R> the adapter's response type
 */
final class ThrottledCall<R extends ProviderResponse> {

    private static final Log logger = LogFactory.getLog(ThrottledCall.class);

    private static final ThrottleContext.Scope NO_SCOPE = () -> {
    };

    final ThrottledClient client;

    final ProviderExchange<R> exchange;

    final LlmRequest llmRequest;

    final ThrottledModel model;

    final AdmissionRequest admission;

    private final ThrottleContext.@Nullable Scope scope;

    final boolean streaming;

    private final long startNanos;

    ThrottledCall(ThrottledClient client, ProviderRequest request, ProviderExchange<R> exchange) {
        this.client = client;
        this.exchange = exchange;
        this.startNanos = client.time.nanoTime();
        this.llmRequest = client.requestReader.read(request.body());
        this.streaming = request.streaming() || this.llmRequest.stream();
        ThrottleContext context = ThrottleContext.current();
        if (context != null && !context.getClient().equals(client.getName())) {
            context = null;
        }
        String modelName = modelOf(context);
        this.model = client.model(modelName);
        long inputTokens = client.estimator.estimateInputTokens(modelName, this.llmRequest);
        Long maxOutput = this.llmRequest.maxOutputTokens();
        Priority priority = (context != null) ? context.getPriority() : Priority.NORMAL;
        String tenant = (context != null && context.getTenant() != null) ? context.getTenant()
                : client.tenantResolver.resolveTenant(request);
        Duration maxWait = (context != null) ? context.getMaxWait() : null;
        this.admission = new AdmissionRequest(priority, tenant, inputTokens, (maxOutput != null) ? maxOutput : 0,
                maxWait);
        // a tenant from the TenantResolver is made current for the call, so observers
        // (metrics) see it too
        this.scope = (context == null && tenant != null)
                ? ThrottleContext.open(new ThrottleContext(client.getName(), modelName, priority, tenant, 0, null))
                : null;
    }

    private String modelOf(@Nullable ThrottleContext context) {
        String requested = this.llmRequest.model();
        if (requested != null && !requested.isBlank()) {
            return requested;
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
            checkContextWindow();
            // inside a @Throttled invocation no server wait beyond its max-wait is slept:
            // the call fails with RetryAfterTooLongException and the invocation moves on
            // to its next model
            ThrottledResponse<R> response = this.client.retryEngine.execute(this.client.getName(), this.model.name,
                    this.admission.maxWait(), this::attempt);
            callEnded((response.status() / 100 == 2) ? CallOutcome.SUCCESS : CallOutcome.FAILED);
            return response;
        }
        catch (LlmThrottleException ex) {
            logger.warn("Call to client '" + this.client.getName() + "', model '" + this.model.name + "' failed: "
                    + ex.getMessage());
            RejectionReason rejection = ex.getRejectionReason();
            if (rejection != null) {
                this.client.events.onRejected(this.client.getName(), this.model.name, rejection, ex);
            }
            callEnded((rejection != null) ? CallOutcome.REJECTED : CallOutcome.FAILED);
            throw ex;
        }
        catch (IOException | RuntimeException | Error ex) {
            logger
                .warn("Call to client '" + this.client.getName() + "', model '" + this.model.name + "' failed: " + ex);
            callEnded(CallOutcome.FAILED);
            throw ex;
        }
    }

    /**
     * Refuses, before anything is sent, a request that does not fit its model's context
     * window: its estimated input (as admission estimates it) plus the output it
     * reserves.
     */
    private void checkContextWindow() {
        Long window = this.model.contextWindow;
        if (window != null && this.admission.inputTokens() + this.admission.outputTokens() > window) {
            throw new ContextWindowExceededException(this.client.getName(), this.model.name,
                    this.admission.inputTokens(), this.admission.outputTokens(), window);
        }
    }

    private void callEnded(CallOutcome outcome) {
        this.client.events.onCall(this.client.getName(), this.model.name, outcome, since(this.startNanos));
    }

    private ThrottledResponse<R> attempt(int retryCount) throws IOException {
        // Before admission, so that an open circuit fails fast instead of queueing. The
        // permission goes with the attempt's outcome to the events; a stream takes it
        // along until it ends.
        ThrottledAttempt<R> attempt = new ThrottledAttempt<>(this, this.model.circuit.acquire());
        try {
            return attempt.run();
        }
        finally {
            attempt.releaseCircuitUnlessHandedOver();
        }
    }

    Duration since(long startNanos) {
        return Duration.ofNanos(this.client.time.nanoTime() - startNanos);
    }

}
