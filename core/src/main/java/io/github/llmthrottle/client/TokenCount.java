package io.github.llmthrottle.client;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import io.github.llmthrottle.provider.Headers;
import io.github.llmthrottle.retry.CallDeadline;
import io.github.llmthrottle.retry.Classification;
import io.github.llmthrottle.retry.RetryEngine;
import io.github.llmthrottle.retry.RetryableResponseException;

/**
 * One token-counting request through a {@link ThrottledClient} (Anthropic's
 * {@code count_tokens}): retried on a 429, a 529 and the other retryable answers as a
 * model call is, but nothing else of the model's pipeline applies. The provider meters
 * token counting under limits of its own, so the request is not admitted (it takes none
 * of the model's requests, tokens or concurrency), counts against no day or month quota,
 * settles nothing, does not calibrate or pause the model, and is always sent where the
 * caller sent it (never to a deployment of the model, whose API key the caller did not
 * choose). Its retries use the client's retry settings and report to no observer: they
 * are not the model's.
 */
final class TokenCount {

    private static final String MODEL = "count_tokens";

    private TokenCount() {
    }

    /**
     * Sends the request, retrying it as the client's retry settings say.
     * @param <R> the adapter's response type
     * @param client the client's pipeline
     * @param retryEngine retries the request, reporting to no observer
     * @param request the request
     * @param exchange sends the request once per attempt
     * @return the final response: a success with its body unread, or an error that is not
     * retried
     * @throws IOException an I/O error that is not retried, or an interrupt while waiting
     */
    static <R extends ProviderResponse> ThrottledResponse<R> run(ClientPipeline client, RetryEngine retryEngine,
            ProviderRequest request, ProviderExchange<R> exchange) throws IOException {
        CallDeadline deadline = (request.callTimeout() != null)
                ? CallDeadline.of(request.callTimeout(), client.time().nanoTime()) : null;
        return retryEngine.execute(client.clientName(), MODEL, null, deadline,
                (retryCount) -> attempt(client, exchange));
    }

    /**
     * Sends the request as {@link #run} does, holding no thread: the wait before a retry
     * is scheduled on the client's time source.
     * @param <R> the adapter's response type
     * @param client the client's pipeline
     * @param retryEngine retries the request, reporting to no observer
     * @param request the request
     * @param exchange sends the request once per attempt, and reads an error's body
     * @return the final response, or the failure {@link #run} would throw; cancelling it
     * cancels the exchange in flight or the retry to come
     */
    static <R extends ProviderResponse> CompletableFuture<ThrottledResponse<R>> runAsync(ClientPipeline client,
            RetryEngine retryEngine, ProviderRequest request, AsyncProviderExchange<R> exchange) {
        CallDeadline deadline = (request.callTimeout() != null)
                ? CallDeadline.of(request.callTimeout(), client.time().nanoTime()) : null;
        return retryEngine.executeAsync(client.clientName(), MODEL, null, deadline,
                (retryCount) -> attemptAsync(client, exchange));
    }

    private static <R extends ProviderResponse> CompletableFuture<ThrottledResponse<R>> attemptAsync(
            ClientPipeline client, AsyncProviderExchange<R> exchange) {
        CompletableFuture<R> sent = exchange.execute();
        AtomicReference<CompletableFuture<?>> step = new AtomicReference<>(sent);
        CompletableFuture<ThrottledResponse<R>> attempt = sent.thenCompose((response) -> {
            if (response.status() / 100 == 2) {
                return CompletableFuture.completedFuture(ThrottledResponse.unsettled(response));
            }
            CompletableFuture<byte[]> errorBody = exchange.readBody(response, ResponseBodies.MAX_ERROR_BODY);
            step.set(errorBody);
            return errorBody.thenApply((bytes) -> refused(client, response, bytes));
        });
        attempt.whenComplete((response, failure) -> {
            if (attempt.isCancelled()) {
                // the caller gave up: the exchange or the error's body stops, and an
                // answer that came anyway is released
                CompletableFuture<?> current = step.get();
                if (current != null) {
                    current.cancel(false);
                }
                sent.thenAccept(ProviderResponse::close);
            }
        });
        return attempt;
    }

    private static <R extends ProviderResponse> ThrottledResponse<R> attempt(ClientPipeline client,
            ProviderExchange<R> exchange) throws IOException {
        R response = exchange.execute();
        int status = response.status();
        if (status / 100 == 2) {
            return ThrottledResponse.unsettled(response);
        }
        byte[] errorBody;
        try (response; InputStream in = response.body()) {
            errorBody = in.readNBytes(ResponseBodies.MAX_ERROR_BODY);
        }
        return refused(client, response, errorBody);
    }

    /** An error answer: retried when it may be, else handed back. */
    private static <R extends ProviderResponse> ThrottledResponse<R> refused(ClientPipeline client, R response,
            byte[] errorBody) {
        int status = response.status();
        Headers headers = response.headers();
        Classification classification = client.classifier().classify(status, headers, errorBody);
        if (classification.retryable()) {
            throw new RetryableResponseException(classification, response.toException(errorBody),
                    ResponseBodies.requestId(headers));
        }
        return ThrottledResponse.buffered(response, errorBody);
    }

}
