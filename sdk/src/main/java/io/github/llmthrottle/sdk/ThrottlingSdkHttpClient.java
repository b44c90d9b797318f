package io.github.llmthrottle.sdk;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import io.github.llmthrottle.client.Caller;
import io.github.llmthrottle.client.HeldAdmission;
import io.github.llmthrottle.client.ProviderExchange;
import io.github.llmthrottle.client.ProviderRequest;
import io.github.llmthrottle.client.ProviderResponse;
import io.github.llmthrottle.client.ProviderTarget;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.client.ThrottledResponse;
import io.github.llmthrottle.provider.EndpointClass;
import io.github.llmthrottle.provider.Headers;
import org.jspecify.annotations.Nullable;

/**
 * The path of a request through an SDK hook, written once over the SDK's own HTTP types:
 * its request {@code Q}, the per-call options {@code O} it is sent with and its response
 * {@code S}. Each SDK's decorating HTTP client extends it and says, a line each, how to
 * read, rebuild and send its request and how to hand its response back.
 * <p>
 * A request the provider does not meter ({@link EndpointClass#PASS_THROUGH}) is sent as
 * the SDK built it. Any other goes through the client's call pipeline
 * ({@link ThrottledClient#exchange}), its body held as bytes so that every attempt sends
 * it again; an asynchronous one waits for its first admission holding no thread, its
 * caller found on the calling thread, and runs on the executor given once admitted.
 *
 * @param <Q> the SDK's request
 * @param <O> the SDK's per-call request options
 * @param <S> the SDK's response
 */
abstract class ThrottlingSdkHttpClient<Q, O, S> {

    private final ThrottledClient client;

    private final Executor asyncExecutor;

    ThrottlingSdkHttpClient(ThrottledClient client, Executor asyncExecutor) {
        this.client = client;
        this.asyncExecutor = asyncExecutor;
    }

    /**
     * The configured client that throttles the requests.
     * @return the client
     */
    final ThrottledClient client() {
        return this.client;
    }

    /**
     * Sends a request and waits for its response.
     * @param request the request as the SDK built it
     * @param options its options
     * @return the response
     */
    final S send(Q request, O options) {
        return send(request, options, SdkCalls.caller(this.client));
    }

    /**
     * Sends a request without holding a thread while it waits for its first admission
     * ({@link ThrottledClient#admitAhead}): only once admitted does it go to the
     * executor, where its attempts run (and retries wait). Cancelling the future while
     * the call waits takes it out of the queue; an admission the call cannot use (the
     * executor refuses it, the future was cancelled) is given back.
     * @param request the request as the SDK built it
     * @param options its options
     * @return its response to come
     */
    final CompletableFuture<S> sendAsync(Q request, O options) {
        URI uri = uri(request);
        if (this.client.endpointClass(uri) == EndpointClass.PASS_THROUGH) {
            return sendAsBuiltAsync(request, options);
        }
        // the caller as found here, on the calling thread
        Caller caller = SdkCalls.caller(this.client);
        byte[] body = body(request);
        ProviderRequest providerRequest = providerRequest(request, uri, body, caller);
        Q replayable = withBody(request, body);
        CompletableFuture<S> result = new CompletableFuture<>();
        CompletableFuture<@Nullable HeldAdmission> admitted = this.client.admitAhead(providerRequest);
        HeldAdmission.runWhenAdmitted(admitted, this.asyncExecutor, (held) -> {
            if (result.isDone()) {
                return;
            }
            try {
                result.complete(send(providerRequest, replayable, options, held));
            }
            catch (Throwable ex) {
                result.completeExceptionally(ex);
            }
        }, result::completeExceptionally);
        result.whenComplete((response, failure) -> {
            if (result.isCancelled()) {
                admitted.cancel(false);
            }
        });
        return result;
    }

    /** Sends a request of {@code caller}, found where the request entered. */
    private S send(Q request, O options, Caller caller) {
        URI uri = uri(request);
        if (this.client.endpointClass(uri) == EndpointClass.PASS_THROUGH) {
            // not metered by the provider (a file, a batch): sent as the SDK built it,
            // its body unread, and retried by the SDK as it would be without us
            return sendAsBuilt(request, options);
        }
        byte[] body = body(request);
        return send(providerRequest(request, uri, body, caller), withBody(request, body), options, null);
    }

    private ProviderRequest providerRequest(Q request, URI uri, byte[] body, Caller caller) {
        Headers headers = headers(request);
        return new ProviderRequest(method(request), uri, headers, body,
                SdkCalls.acceptsEventStream(headers.values("Accept")), null, caller);
    }

    /** Sends a request through the pipeline, its first attempt on {@code held} if any. */
    private S send(ProviderRequest providerRequest, Q replayable, O options, @Nullable HeldAdmission held) {
        SdkExchange exchange = new SdkExchange(replayable, options);
        ThrottledResponse<SdkResponse<S>> response;
        try {
            response = (held != null) ? held.exchange(providerRequest, exchange)
                    : this.client.exchange(providerRequest, exchange);
        }
        catch (IOException ex) {
            // what the pipeline did not retry (a cancellation, a successful response
            // whose body broke: it was billed) as a failure of the SDK's that its
            // retry loop leaves alone, unlike its I/O errors
            throw notRetried(ex);
        }
        return throttled(response);
    }

    /**
     * Where the request goes.
     * @param request the request
     * @return its full URI
     */
    abstract URI uri(Q request);

    /**
     * The request's HTTP method.
     * @param request the request
     * @return the method's name
     */
    abstract String method(Q request);

    /**
     * The request's headers.
     * @param request the request
     * @return its headers
     */
    abstract Headers headers(Q request);

    /**
     * The request's body, read.
     * @param request the request
     * @return its bytes, empty when it has none
     */
    abstract byte[] body(Q request);

    /**
     * The request with {@code body} as a body every attempt can send again.
     * @param request the request
     * @param body its body read ({@link #body})
     * @return the request to send on every attempt
     */
    abstract Q withBody(Q request, byte[] body);

    /**
     * The request as it goes to a deployment.
     * @param request the request
     * @param target where the attempt goes
     * @return the request to send
     */
    abstract Q redirected(Q request, ProviderTarget target);

    /**
     * Sends the request through the SDK's own HTTP client, untouched.
     * @param request the request
     * @param options its options
     * @return the response
     */
    abstract S sendAsBuilt(Q request, O options);

    /**
     * Sends the request asynchronously through the SDK's own HTTP client, untouched.
     * @param request the request
     * @param options its options
     * @return its response to come
     */
    abstract CompletableFuture<S> sendAsBuiltAsync(Q request, O options);

    /**
     * One attempt through the SDK's own HTTP client, its I/O failure as the I/O error the
     * pipeline retries.
     * @param request the request
     * @param options its options
     * @return the response
     * @throws IOException when the request could not be sent or answered
     */
    abstract SdkResponse<S> attempt(Q request, O options) throws IOException;

    /**
     * An I/O failure the pipeline gave up on, as the SDK's failure that its retry loop
     * does not retry.
     * @param ex the failure
     * @return the SDK's exception to throw
     */
    abstract RuntimeException notRetried(IOException ex);

    /**
     * The pipeline's response as the SDK's.
     * @param response the pipeline's response
     * @return the response to hand back
     */
    abstract S throttled(ThrottledResponse<SdkResponse<S>> response);

    /**
     * One attempt: as the request says, or to a deployment of its model (another URL,
     * other authentication headers).
     */
    private final class SdkExchange implements ProviderExchange<SdkResponse<S>> {

        private final Q request;

        private final O options;

        SdkExchange(Q request, O options) {
            this.request = request;
            this.options = options;
        }

        @Override
        public SdkResponse<S> execute() throws IOException {
            return attempt(this.request, this.options);
        }

        @Override
        public boolean canRedirect() {
            return true;
        }

        @Override
        public SdkResponse<S> execute(ProviderTarget target) throws IOException {
            return attempt(redirected(this.request, target), this.options);
        }

    }

    /**
     * An SDK's response as the call pipeline sees it.
     *
     * @param <S> the SDK's response
     * @param response the SDK's response
     * @param status its status code
     * @param headers its headers
     * @param content reads its body
     * @param closer closes it
     */
    record SdkResponse<S>(S response, int status, Headers headers, Supplier<InputStream> content,
            Runnable closer) implements ProviderResponse {

        @Override
        public InputStream body() {
            return this.content.get();
        }

        @Override
        public void close() {
            this.closer.run();
        }

    }

}
