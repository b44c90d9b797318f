package io.github.llmthrottle.client;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.client.ThrottleObserver.CallOutcome;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.observation.LlmThrottleObservations;
import io.github.llmthrottle.provider.LogText;
import io.github.llmthrottle.routing.ModelCircuit;
import io.micrometer.observation.Observation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One logical call through a {@link ThrottledClient}, from the request to its settled
 * response: its {@link CallContext}, the adapter's exchange, and the steps of each
 * attempt ({@link ThrottledAttempt}). In order: the model's context window (checked once,
 * before anything else), the circuit's permission, admission (priority queue, buckets,
 * concurrency, tenant), the HTTP attempt, classification of the response, calibration
 * from its headers, the model-wide pause after a 429, settlement of the tokens from the
 * JSON body or the stream's events, and the events every observer (totals, metrics,
 * health) sees. Retries are the {@link io.github.llmthrottle.retry.RetryEngine}'s, around
 * {@link #route(int)}.
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
 * the queue wait, each attempt and each back-off sleep apart ({@link CallObservation}). A
 * streamed call's observation ends with its stream.
 *
 * @param <R> the adapter's response type
 */
final class ThrottledCall<R extends ProviderResponse> {

    private static final Log logger = LogFactory.getLog(ThrottledCall.class);

    private final CallContext context;

    final ProviderExchange<R> exchange;

    final CallObservation observation;

    /** Deployments of the model that failed in this call, tried after the others. */
    private final Set<ThrottledModel> failedDeployments = ConcurrentHashMap.newKeySet();

    /** The first admission, waited for ahead of the call, or {@code null}. */
    private final @Nullable HeldAdmission held;

    ThrottledCall(CallContext context, LlmThrottleObservations observations, ProviderExchange<R> exchange) {
        this(context, observations, exchange, null);
    }

    ThrottledCall(CallContext context, LlmThrottleObservations observations, ProviderExchange<R> exchange,
            @Nullable HeldAdmission held) {
        this.context = context;
        this.exchange = exchange;
        this.observation = new CallObservation(context, observations);
        this.held = held;
    }

    CallContext context() {
        return this.context;
    }

    /**
     * Runs the call to its end, in its observation: attempts and retries, then one call
     * event.
     * @return the final response
     * @throws IOException an I/O error that is not retried, or an interrupt
     */
    ThrottledResponse<R> run() throws IOException {
        this.observation.start();
        try (Observation.Scope observing = this.observation.openScope()) {
            return execute();
        }
    }

    /**
     * The call's steps: the context window, then attempts, each routed ({@link #route}),
     * admitted, sent, classified and settled ({@link ThrottledAttempt}), retried as the
     * retry engine decides, then the call's events.
     */
    private ThrottledResponse<R> execute() throws IOException {
        try {
            this.context.checkContextWindow();
            // a caller's max-wait bounds the server waits slept too (a @Throttled
            // invocation's: beyond it the call fails with RetryAfterTooLongException and
            // the invocation moves on to its next model)
            ThrottledResponse<R> response = this.context.retries()
                .execute(clientName(), modelName(), this.context.admission().maxWait(), this.context.deadline(),
                        this::route);
            answered(response);
            return response;
        }
        catch (IOException | RuntimeException | Error ex) {
            ended(ex);
            throw ex;
        }
    }

    /**
     * The call failed: refused, its retries exhausted, or an error.
     * @param ex why
     */
    void ended(Throwable ex) {
        if (ex instanceof LlmThrottleException refusal) {
            refused(refusal);
            return;
        }
        String message = LogText
            .escape("Call to client '" + clientName() + "', model '" + modelName() + "' failed: " + ex);
        if (ex instanceof CancellationException) {
            // the caller gave up on a call that holds no thread: nothing went wrong
            logger.debug(message);
        }
        else {
            logger.warn(message);
        }
        callEnded(CallOutcome.FAILED);
        completed(CallOutcome.FAILED, ex.getClass().getName(), () -> ex);
    }

    /** The call has its final response: a stream's call goes on until its stream ends. */
    void answered(ThrottledResponse<R> response) {
        boolean succeeded = response.status() / 100 == 2;
        callEnded(succeeded ? CallOutcome.SUCCESS : CallOutcome.FAILED);
        if (!response.isStreamed()) {
            completed(succeeded ? CallOutcome.SUCCESS : CallOutcome.FAILED,
                    succeeded ? null : Integer.toString(response.status()), succeeded ? null : () -> errorOf(response));
        }
    }

    /** The call was refused, or its retries are exhausted. */
    private void refused(LlmThrottleException ex) {
        logger.warn(LogText
            .escape("Call to client '" + clientName() + "', model '" + modelName() + "' failed: " + ex.getMessage()));
        RejectionReason rejection = ex.getRejectionReason();
        if (rejection != null) {
            this.context.events().onRejected(clientName(), modelName(), rejection, ex);
            this.observation.rejected(rejection);
        }
        CallOutcome outcome = (rejection != null) ? CallOutcome.REJECTED : CallOutcome.FAILED;
        callEnded(outcome);
        completed(outcome, ex.getClass().getName(), () -> ex);
    }

    private void callEnded(CallOutcome outcome) {
        this.context.events().onCall(clientName(), modelName(), outcome, this.context.since(this.context.startNanos()));
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
        this.context.events()
            .onCallCompleted(clientName(), modelName(), this.context.since(this.context.startNanos()), errorType);
        this.observation.stop(outcome, error);
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
        this.context.events().onFirstChunk(clientName(), modelName(), this.context.since(this.context.startNanos()));
    }

    /** The exception the caller's HTTP library makes of an error response. */
    private Throwable errorOf(ThrottledResponse<R> response) {
        byte[] body = response.bufferedBody();
        return response.response().toException((body != null) ? body : new byte[0]);
    }

    /**
     * Routes one attempt: to the model, or to its deployments in the order
     * {@link DeploymentRouting} gives, the next one taking over at once when one fails.
     */
    private ThrottledResponse<R> route(int retryCount) throws IOException {
        if (!routesToDeployments()) {
            return attempt(this.context.model(), null, retryCount + 1);
        }
        List<ThrottledModel> order = deploymentOrder();
        for (int i = 0;; i++) {
            ThrottledModel deployment = order.get(i);
            try {
                return attempt(deployment, target(deployment), retryCount + 1);
            }
            catch (IOException | RuntimeException ex) {
                if (!movesOn(deployment, ex, (i + 1 < order.size()) ? order.get(i + 1) : null)) {
                    throw ex;
                }
            }
        }
    }

    /** Whether the attempts go to the model's deployments. */
    boolean routesToDeployments() {
        return !this.context.model().deployments.isEmpty() && this.exchange.canRedirect();
    }

    /** The model's deployments, in the order to try them for one attempt. */
    List<ThrottledModel> deploymentOrder() {
        return DeploymentRouting.order(clientName(), this.context.model().name, this.context.model().deployments,
                this.context.admission(), this.failedDeployments);
    }

    /** Where an attempt goes to {@code deployment}. */
    ProviderTarget target(ThrottledModel deployment) {
        return DeploymentRouting.target(this.context.pipeline().settings(), this.context.request(), deployment);
    }

    /**
     * Whether the attempt that failed on {@code deployment} moves on to {@code next} at
     * once ({@link DeploymentRouting#movesOn}).
     */
    boolean movesOn(ThrottledModel deployment, Throwable failure, @Nullable ThrottledModel next) {
        return DeploymentRouting.movesOn(this.context, this.failedDeployments, deployment, failure, next);
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
        HeldAdmission admitted = (this.held != null && number == 1 && this.held.takeFor(target)) ? this.held : null;
        ModelCircuit.Permission permission;
        try {
            permission = target.circuit.acquire();
        }
        catch (RuntimeException ex) {
            if (admitted != null) {
                admitted.releaseTaken();
            }
            throw ex;
        }
        ThrottledAttempt<R> attempt = new ThrottledAttempt<>(this, target, redirect, permission, number);
        try {
            return BlockingAttempt.run(attempt, this.exchange, admitted);
        }
        finally {
            attempt.releaseCircuitUnlessHandedOver();
        }
    }

    private String clientName() {
        return this.context.clientName();
    }

    private String modelName() {
        return this.context.model().name;
    }

}
