package io.github.llmthrottle.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.observation.LlmThrottleObservations;
import io.github.llmthrottle.retry.RetryEngine;

/**
 * Where {@link ThrottledClient#exchangeAsync} sends a request, as its endpoint class
 * says, holding no thread on the way: a model call through an {@link AsyncCall} once its
 * context is worked out (after the provider's count of its tokens, for a client that asks
 * for one), a token count through its own retries ({@link TokenCount#runAsync}), anything
 * else once, untouched.
 */
final class AsyncDispatch {

    private AsyncDispatch() {
    }

    /**
     * Starts a call of {@link ThrottledClient#exchangeAsync}.
     * @param <R> the adapter's response type
     * @param pipeline what every call of the client shares
     * @param tokenCountRetries retries token counts, reporting to no observer
     * @param models the client's models by name, created on first use
     * @param observations where calls and attempts are observed
     * @param request the request
     * @param exchange sends the request once per attempt
     * @return the final response, or the failure; cancelling it cancels the step in
     * progress (the count of the call's tokens included)
     */
    static <R extends ProviderResponse> CompletableFuture<ThrottledResponse<R>> start(ClientPipeline pipeline,
            RetryEngine tokenCountRetries, Function<String, ThrottledModel> models,
            LlmThrottleObservations observations, ProviderRequest request, AsyncProviderExchange<R> exchange) {
        return switch (pipeline.settings().provider().classify(request.uri())) {
            case MODEL_CALL -> modelCall(pipeline, models, observations, request, exchange);
            case TOKEN_COUNT -> TokenCount.runAsync(pipeline, tokenCountRetries, request, exchange);
            case PASS_THROUGH -> exchange.execute().thenApply(ThrottledResponse::unsettled);
        };
    }

    private static <R extends ProviderResponse> CompletableFuture<ThrottledResponse<R>> modelCall(
            ClientPipeline pipeline, Function<String, ThrottledModel> models, LlmThrottleObservations observations,
            ProviderRequest request, AsyncProviderExchange<R> exchange) {
        CompletableFuture<CallContext> counted;
        try {
            counted = CallContext.ofAsync(pipeline, models, request);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        if (counted.isDone() && !counted.isCompletedExceptionally()) {
            // nothing to count: the call's own future, which the caller cancels
            return new AsyncCall<>(counted.join(), observations, exchange).run();
        }
        CompletableFuture<ThrottledResponse<R>> result = new CompletableFuture<>();
        AtomicReference<CompletableFuture<?>> step = new AtomicReference<>(counted);
        counted.whenComplete((context, failure) -> {
            if (failure != null) {
                result.completeExceptionally(RetryEngine.causeOf(failure));
                return;
            }
            if (result.isDone()) {
                return;
            }
            CompletableFuture<ThrottledResponse<R>> call = new AsyncCall<>(context, observations, exchange).run();
            step.set(call);
            if (result.isCancelled()) {
                call.cancel(false);
            }
            call.whenComplete((response, callFailure) -> {
                if (callFailure != null) {
                    result.completeExceptionally(RetryEngine.causeOf(callFailure));
                }
                else if (!result.complete(response)) {
                    response.close();
                }
            });
        });
        result.whenComplete((response, failure) -> {
            if (result.isCancelled()) {
                CompletableFuture<?> current = step.get();
                if (current != null) {
                    current.cancel(false);
                }
            }
        });
        return result;
    }

}
