package io.github.llmthrottle.client;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.observation.LlmThrottleObservations;
import io.github.llmthrottle.retry.Cancellation;
import io.github.llmthrottle.retry.RetryEngine;
import io.github.llmthrottle.routing.ModelCircuit;
import io.github.llmthrottle.time.TimeSource;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * One logical call through a {@link ThrottledClient} that holds no thread while it waits
 * ({@link ThrottledClient#exchangeAsync}): the same steps as a blocking
 * {@link ThrottledCall}, whose decisions it reuses (the context window, the circuit,
 * deployments, the call's events), each attempt a {@link ThrottledAttempt} admitted by
 * the limiter's asynchronous admission, sent through the adapter's
 * {@link AsyncProviderExchange}, and classified and settled as a blocking attempt is;
 * retries are the {@link RetryEngine}'s, the wait before each scheduled on the client's
 * time source. What follows each step runs on the thread that completed it (the thread
 * that admitted the call, the HTTP library's), so nothing here blocks. The call's and
 * each attempt's observations are current while the pipeline starts what comes next on
 * the caller's behalf (the first attempt, an exchange), as on a blocking call.
 * <p>
 * Cancelling the result cancels the step in progress: a call waiting in the queue leaves
 * it, an exchange in flight is cancelled and its permit, circuit permission and
 * reservations given back, a scheduled retry does not run.
 *
 * @param <R> the adapter's response type
 */
final class AsyncCall<R extends ProviderResponse> {

    private final ThrottledCall<R> call;

    private final AsyncProviderExchange<R> exchange;

    private final CompletableFuture<ThrottledResponse<R>> result = new CompletableFuture<>();

    /**
     * The step in progress (an admission, an exchange, a body), cancelled with the call.
     */
    private volatile @Nullable CompletableFuture<?> step;

    AsyncCall(CallContext context, LlmThrottleObservations observations, AsyncProviderExchange<R> exchange) {
        this.exchange = exchange;
        this.call = new ThrottledCall<>(context, observations, new ProviderExchange<>() {

            @Override
            public R execute() {
                throw new IllegalStateException("An asynchronous call sends through its AsyncProviderExchange");
            }

            @Override
            public boolean canRedirect() {
                return exchange.canRedirect();
            }

        });
    }

    /**
     * Starts the call.
     * @return its final response (a success, or an error that is not retried), or the
     * failure a blocking call would throw
     */
    CompletableFuture<ThrottledResponse<R>> run() {
        CallContext context = this.call.context();
        this.call.observation.start();
        try {
            context.checkContextWindow();
        }
        catch (RuntimeException ex) {
            this.call.ended(ex);
            return CompletableFuture.failedFuture(ex);
        }
        CompletableFuture<ThrottledResponse<R>> retried;
        // current while the first attempt starts, as for a blocking call
        try (Observation.Scope observing = this.call.observation.openScope()) {
            retried = context.retries()
                .executeAsync(context.clientName(), context.model().name, context.admission().maxWait(),
                        context.deadline(), this::route);
        }
        retried.whenComplete((response, failure) -> {
            if (failure != null) {
                Throwable cause = RetryEngine.causeOf(failure);
                this.call.ended(cause);
                this.result.completeExceptionally(cause);
            }
            else if (this.result.isCancelled()) {
                this.call.ended(new CancellationException("The caller cancelled the call"));
                response.close();
            }
            else {
                this.call.answered(response);
                if (!this.result.complete(response)) {
                    response.close();
                }
            }
        });
        this.result.whenComplete((response, failure) -> {
            if (this.result.isCancelled()) {
                retried.cancel(false);
                cancelStep();
            }
        });
        return this.result;
    }

    /** Routes one attempt: to the model, or to its deployments one after the other. */
    private CompletableFuture<ThrottledResponse<R>> route(int retryCount) {
        if (!this.call.routesToDeployments()) {
            return attempt(this.call.context().model(), null, retryCount + 1);
        }
        return routeFrom(this.call.deploymentOrder(), 0, retryCount + 1);
    }

    private CompletableFuture<ThrottledResponse<R>> routeFrom(List<ThrottledModel> order, int index, int number) {
        ThrottledModel deployment = order.get(index);
        ThrottledModel next = (index + 1 < order.size()) ? order.get(index + 1) : null;
        return attempt(deployment, this.call.target(deployment), number).handle((response, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(response);
            }
            Throwable cause = RetryEngine.causeOf(failure);
            if (!this.result.isDone() && this.call.movesOn(deployment, cause, next)) {
                return routeFrom(order, index + 1, number);
            }
            return CompletableFuture.<ThrottledResponse<R>>failedFuture(cause);
        }).thenCompose(Function.identity());
    }

    /** One attempt on {@code target}: the model itself, or one of its deployments. */
    private CompletableFuture<ThrottledResponse<R>> attempt(ThrottledModel target, @Nullable ProviderTarget redirect,
            int number) {
        ModelCircuit.Permission permission;
        try {
            // before admission, so that an open circuit fails fast instead of queueing
            permission = target.circuit.acquire();
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        ThrottledAttempt<R> attempt = new ThrottledAttempt<>(this.call, target, redirect, permission, number);
        long queued = this.call.context().pipeline().time().nanoTime();
        return AttemptTokens.admitAsync(this.call.context(), target, this::track)
            .thenCompose((tokens) -> send(attempt, tokens, queued))
            .handle((response, failure) -> heldEverywhere(attempt, response, failure))
            .thenCompose(Function.identity())
            .whenComplete((response, failure) -> {
                if (failure != null) {
                    attempt.failed(RetryEngine.causeOf(failure));
                }
                attempt.finish();
                attempt.releaseCircuitUnlessHandedOver();
            });
    }

    /**
     * The attempt's outcome once the pause its 429 started holds on every instance
     * sharing a store: nobody hears of the 429 before. Goes on on the time source's
     * thread, as after a timed wait, not on the store's I/O thread that said so.
     */
    private CompletableFuture<ThrottledResponse<R>> heldEverywhere(ThrottledAttempt<R> attempt,
            @Nullable ThrottledResponse<R> response, @Nullable Throwable failure) {
        CompletableFuture<ThrottledResponse<R>> outcome = (failure != null) ? CompletableFuture.failedFuture(failure)
                : CompletableFuture.completedFuture(response);
        CompletableFuture<Void> held = attempt.sharedPause();
        if (held.isDone()) {
            return outcome;
        }
        TimeSource time = this.call.context().pipeline().time();
        return held.thenComposeAsync((done) -> outcome, (task) -> time.schedule(task, 0));
    }

    /** Sends the admitted attempt through the adapter, and handles what came back. */
    private CompletableFuture<ThrottledResponse<R>> send(ThrottledAttempt<R> attempt, AttemptTokens tokens,
            long queued) {
        if (this.result.isDone()) {
            // admitted as the caller gave up
            tokens.permit().release(Permit.Outcome.IGNORED);
            return CompletableFuture.failedFuture(new CancellationException("The caller cancelled the call"));
        }
        attempt.admitted(tokens, queued);
        CompletableFuture<R> exchanged;
        // current while the adapter starts the exchange: its HTTP library's own
        // observation of it nests in the attempt's
        try (Observation.Scope observing = attempt.openScope()) {
            exchanged = (attempt.redirect != null) ? this.exchange.execute(attempt.redirect) : this.exchange.execute();
        }
        catch (RuntimeException | Error ex) {
            tokens.permit().release(Permit.Outcome.IGNORED);
            return CompletableFuture.failedFuture(ex);
        }
        track(exchanged);
        return exchanged.handle((response, failure) -> {
            if (failure == null) {
                return received(attempt, tokens, response);
            }
            Throwable cause = RetryEngine.causeOf(failure);
            if (cause instanceof IOException ex) {
                return CompletableFuture.<ThrottledResponse<R>>failedFuture(
                        attempt.notSent(tokens, ex, this.result.isCancelled() || Cancellation.isCancellation(ex)));
            }
            if (cause instanceof CancellationException) {
                return CompletableFuture.<ThrottledResponse<R>>failedFuture(attempt.notSent(tokens, cause, true));
            }
            tokens.permit().release(Permit.Outcome.IGNORED);
            return CompletableFuture.<ThrottledResponse<R>>failedFuture(cause);
        }).thenCompose(Function.identity());
    }

    /** The answer arrived: a stream is handed back, a whole body read first. */
    private CompletableFuture<ThrottledResponse<R>> received(ThrottledAttempt<R> attempt, AttemptTokens tokens,
            R response) {
        boolean answered = response.status() / 100 == 2;
        CompletableFuture<byte[]> body;
        try {
            ThrottledResponse<R> streamed = attempt.received(response, tokens);
            if (streamed != null) {
                return CompletableFuture.completedFuture(streamed);
            }
            body = this.exchange.readBody(response, answered ? Integer.MAX_VALUE : ResponseBodies.MAX_ERROR_BODY);
        }
        catch (RuntimeException | Error ex) {
            return CompletableFuture.failedFuture(broken(tokens, response, ex));
        }
        track(body);
        return body.handle((bytes, failure) -> {
            try {
                if (failure != null) {
                    Throwable cause = RetryEngine.causeOf(failure);
                    throw new CompletionException((answered && cause instanceof IOException ex)
                            ? attempt.bodyFailed(response, tokens, ex) : cause);
                }
                return answered ? attempt.answered(response, tokens, bytes) : attempt.refused(response, tokens, bytes);
            }
            catch (RuntimeException | Error ex) {
                broken(tokens, response, ex);
                throw ex;
            }
        });
    }

    /** Gives back the attempt's permit and response after a failure that ends it. */
    private static <E extends Throwable> E broken(AttemptTokens tokens, ProviderResponse response, E failure) {
        tokens.permit().release(Permit.Outcome.IGNORED);
        response.close();
        return failure;
    }

    /** Keeps {@code future} as the step to cancel when the caller gives up. */
    private void track(CompletableFuture<?> future) {
        this.step = future;
        if (this.result.isCancelled()) {
            future.cancel(false);
        }
    }

    private void cancelStep() {
        CompletableFuture<?> current = this.step;
        if (current != null) {
            current.cancel(false);
        }
    }

}
