package io.github.llmthrottle.okhttp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.client.HeldAdmission;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ProviderExchange;
import io.github.llmthrottle.client.ProviderRequest;
import io.github.llmthrottle.client.ProviderTarget;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.client.ThrottledResponse;
import io.github.llmthrottle.provider.EndpointClass;
import io.github.llmthrottle.retry.Cancellation;
import okhttp3.Call;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okhttp3.internal.connection.RealCall;
import okio.Okio;
import org.jspecify.annotations.Nullable;

/**
 * The OkHttp interceptor that throttles every request an {@code OkHttpClient} sends to a
 * configured client's base URL (the official SDKs under Spring AI's Anthropic and OpenAI
 * models): each such model call or token count goes through the client's call pipeline
 * ({@link ThrottledClient#exchange}), every other request (to another host, or one that
 * is {@link EndpointClass#PASS_THROUGH}) passes through untouched.
 * <p>
 * A request to a configured client's host follows no redirect, whatever the
 * {@code OkHttpClient} says: it carries the client's credentials, and OkHttp would send
 * all of them but {@code Authorization} on to whatever host a {@code Location} names. The
 * 3xx reaches the caller as it is ({@link RedirectFreeCall}).
 * <p>
 * One retry layer: llm-throttle retries, so every response handed back carries
 * {@code x-should-retry: false}, which the SDKs' own retry loops obey, and a throttling
 * failure is thrown as the {@link LlmThrottleException} it is (on OkHttp's synchronous
 * path a runtime exception of an interceptor reaches the caller as is, and the SDKs retry
 * only I/O errors). On OkHttp's asynchronous path (an enqueued call: the SDKs' async
 * clients, Spring AI's {@code stream()}) it is the cause of the {@link IOException} the
 * call fails with, since OkHttp would otherwise rethrow it on its dispatcher thread. An
 * I/O error the pipeline gives up on without retrying (a cancellation, a successful
 * response whose body broke while read) reaches a synchronous caller as an
 * {@link UncheckedIOException}, which the SDKs do not retry either. OkHttp's call timeout
 * is told from a cancellation ({@code Call.cancel()}) by whether the timeout has run out:
 * inside the chain both end the same way, and a timeout is the provider's failure.
 * <p>
 * An enqueued call is told from an executed one by the OkHttp code that started its chain
 * ({@code RealCall.AsyncCall.run}, not {@code RealCall.execute}), never by a thread name.
 * With a {@link DispatcherExecutor} given the registry (Spring AI's models get one), it
 * waited for its first admission before it ran, holding no thread, and its first attempt
 * uses that admission; otherwise, and for its retries, it waits on a thread of its
 * dispatcher's executor. Its cancellation ({@code Call.cancel()}) ends either wait: it
 * leaves the admission queue and its callback gets the failure. Every dispatcher that
 * runs an enqueued call to a throttled host has its limits lifted, so that the admission
 * queue, ordered by priority, is what holds those calls back
 * ({@link OkHttpRequests#liftDispatcherLimits}).
 * <p>
 * A caller's priority and tenant arrive as a {@link ThrottleContext} of the resolved
 * client (a {@code @Throttled} invocation), as {@link CallerThrottleParameters} on the
 * calling thread, or as the carrier headers ({@link #PRIORITY_HEADER},
 * {@link #TENANT_HEADER}, {@link #MAX_WAIT_HEADER}, {@link #CLIENT_HEADER}), which travel
 * with the request to another thread and are removed before it reaches the provider.
 */
public final class OkHttpThrottlingInterceptor implements Interceptor {

    /** Carrier header: the priority ({@link Priority} name) of the request. */
    public static final String PRIORITY_HEADER = "X-Llm-Throttle-Priority";

    /** Carrier header: the tenant of the request. */
    public static final String TENANT_HEADER = "X-Llm-Throttle-Tenant";

    /**
     * Carrier header: the longest the request may wait for admission (ISO-8601, as
     * {@code Duration.toString()}).
     */
    public static final String MAX_WAIT_HEADER = "X-Llm-Throttle-Max-Wait";

    /**
     * Carrier header: the only configured client the other carrier headers apply to (a
     * {@code @Throttled} invocation's).
     */
    public static final String CLIENT_HEADER = "X-Llm-Throttle-Client";

    /** The header of the Stainless SDKs' retry loops that says whether to retry. */
    static final String SHOULD_RETRY_HEADER = "x-should-retry";

    /**
     * The most earlier than the call timeout a cancelled call still counts as timed out:
     * the timer started before this interceptor did, a moment on an idle machine, up to
     * hundreds of milliseconds on a loaded one; within half the timeout, and at most a
     * second, a caller's own cancellation is rare enough to be taken for the timeout.
     */
    private static final long CALL_TIMEOUT_TOLERANCE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LlmThrottleRegistry registry;

    public OkHttpThrottlingInterceptor(LlmThrottleRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Response intercept(Chain chain) throws IOException {
        // on OkHttp's own clock (okio's timeouts run on System.nanoTime()): the call
        // timeout's timer started just before the interceptors
        long startNanos = System.nanoTime();
        Request request = chain.request();
        ThrottledClient client = this.registry.resolve(request.url().uri());
        // a request already throttled by an outer instance (the interceptor added twice
        // to one client) is sent as it is
        // and a request the provider does not meter (a file, a batch) is sent as it is
        // too, its bodies streaming
        if (client == null || request.tag(OkHttpThrottlingInterceptor.class) != null) {
            return chain.proceed(hasCarrierHeaders(request) ? withoutCarrierHeaders(request).build() : request);
        }
        if (client.endpointClass(request.url().uri()) == EndpointClass.PASS_THROUGH) {
            // it carries the client's credentials too: a redirect reaches the caller
            return RedirectFreeCall.proceed(chain,
                    hasCarrierHeaders(request) ? withoutCarrierHeaders(request).build() : request, this, startNanos);
        }
        boolean enqueued = EnqueuedCalls.isCurrent();
        if (enqueued) {
            if (chain.call().isCanceled()) {
                // cancelled while it waited for its admission ahead of this run, or
                // since: never sent, and what it was admitted to comes back
                EnqueuedAdmissions.release(chain.call());
                throw Cancellation.cancelled(new IOException("Canceled"));
            }
            if (chain.call() instanceof RealCall call) {
                OkHttpRequests.liftDispatcherLimits(call.getClient().dispatcher(), this.registry);
            }
        }
        RequestBody requestBody = request.body();
        byte[] body = OkHttpRequests.bytes(requestBody);
        // the body as bytes, so that every attempt sends it again (an SDK's body may be
        // one-shot)
        Request outgoing = withoutCarrierHeaders(request).tag(OkHttpThrottlingInterceptor.class, this)
            .method(request.method(),
                    (requestBody != null) ? RequestBody.create(body, requestBody.contentType()) : null)
            .build();
        HeldAdmission admitted = enqueued ? EnqueuedAdmissions.take(chain.call()) : null;
        ThrottledResponse<OkHttpProviderResponse> response;
        CallCancellations.@Nullable Watch waiting = enqueued ? interruptedOnCancel(chain.call()) : null;
        try {
            // an admission waited for ahead of the run is the caller's as it enqueued
            // the call
            ProviderRequest providerRequest = OkHttpRequests.providerRequest(request, body, chain.call(),
                    (admitted != null) ? admitted.getCaller() : OkHttpRequests.caller(request, client));
            OkHttpExchange attempts = new OkHttpExchange(chain, this, outgoing, startNanos, waiting);
            response = (admitted != null) ? admitted.exchange(providerRequest, attempts)
                    : client.exchange(providerRequest, attempts);
        }
        catch (LlmThrottleException ex) {
            if (enqueued) {
                // OkHttp's async path would report a runtime exception as
                // IOException("canceled due to ...") with the original only suppressed,
                // and rethrow it on the dispatcher thread, uncaught: hand it over as the
                // cause of the call's failure instead
                throw new IOException(ex.getMessage(), ex);
            }
            throw ex;
        }
        catch (IOException ex) {
            if (enqueued) {
                throw ex;
            }
            // what the pipeline throws it did not retry (an interrupt): the SDK's
            // synchronous retry loop retries any I/O error, and would sleep on an
            // interrupted thread
            throw new UncheckedIOException(ex);
        }
        finally {
            if (admitted != null) {
                // only when nothing took it (the call failed before its first attempt)
                admitted.release();
            }
            if (waiting != null && waiting.stop()) {
                // the interrupt was the cancellation's: the executor's thread goes back
                // clean
                Thread.interrupted();
            }
        }
        try {
            return toResponse(response);
        }
        catch (IOException | RuntimeException ex) {
            response.close();
            throw ex;
        }
    }

    /**
     * Interrupts this thread when the enqueued {@code call} is cancelled while it waits
     * for admission: the wait ends, the call leaves the admission queue, and its callback
     * gets the failure. The watch stops as the first attempt starts (whose own
     * cancellation {@link RedirectFreeCall} looks after), or when the call ends.
     */
    private static CallCancellations.Watch interruptedOnCancel(Call call) {
        Thread waiting = Thread.currentThread();
        return CallCancellations.watch(call, waiting::interrupt);
    }

    private static boolean hasCarrierHeaders(Request request) {
        return request.header(PRIORITY_HEADER) != null || request.header(TENANT_HEADER) != null
                || request.header(MAX_WAIT_HEADER) != null || request.header(CLIENT_HEADER) != null;
    }

    private static Request.Builder withoutCarrierHeaders(Request request) {
        return request.newBuilder()
            .removeHeader(PRIORITY_HEADER)
            .removeHeader(TENANT_HEADER)
            .removeHeader(MAX_WAIT_HEADER)
            .removeHeader(CLIENT_HEADER);
    }

    /**
     * The pipeline's response as OkHttp's: the provider's status and headers, the body
     * the pipeline hands out (bytes in memory, or the live stream settled as it is read,
     * of unknown length), and {@code x-should-retry: false}.
     */
    private static Response toResponse(ThrottledResponse<OkHttpProviderResponse> throttled) throws IOException {
        Response response = throttled.response().response();
        ResponseBody original = response.body();
        MediaType contentType = (original != null) ? original.contentType() : null;
        byte[] buffered = throttled.bufferedBody();
        ResponseBody body = (buffered != null) ? ResponseBody.create(buffered, contentType)
                : ResponseBody.create(Okio.buffer(Okio.source(throttled.body())), contentType, -1);
        return response.newBuilder().header(SHOULD_RETRY_HEADER, "false").body(body).build();
    }

    /**
     * One attempt through the rest of the chain, following no redirect: as the request
     * says, or to a deployment of its model (another URL, other authentication headers).
     */
    private record OkHttpExchange(Chain chain, Interceptor throttling, Request outgoing, long startNanos,
            CallCancellations.@Nullable Watch waiting) implements ProviderExchange<OkHttpProviderResponse> {

        @Override
        public OkHttpProviderResponse execute() throws IOException {
            return send(this.outgoing);
        }

        @Override
        public boolean canRedirect() {
            return true;
        }

        @Override
        public OkHttpProviderResponse execute(ProviderTarget target) throws IOException {
            Request.Builder redirected = this.outgoing.newBuilder().url(HttpUrl.get(target.uri()));
            target.removedHeaders().forEach(redirected::removeHeader);
            target.headers().forEach(redirected::header);
            return send(redirected.build());
        }

        private OkHttpProviderResponse send(Request request) throws IOException {
            if (this.waiting != null && this.waiting.stop()) {
                // cancelled as the wait for admission ended: never sent
                Thread.interrupted();
                throw Cancellation.cancelled(new IOException("Canceled"));
            }
            try {
                return new OkHttpProviderResponse(
                        RedirectFreeCall.proceed(this.chain, request, this.throttling, this.startNanos));
            }
            catch (IOException ex) {
                throw reported(ex);
            }
        }

        /**
         * The failure of an attempt as the call pipeline tells a timeout from a
         * cancellation: OkHttp's call timeout cancels the call, so inside the chain both
         * end the same way (the socket closed, or {@code Canceled}); the call timed out
         * when its timeout has run out, else its caller cancelled it.
         */
        private IOException reported(IOException failure) {
            Call call = this.chain.call();
            if (!call.isCanceled() || Thread.currentThread().isInterrupted()) {
                return failure;
            }
            long timeout = call.timeout().timeoutNanos();
            long tolerance = Math.min(timeout / 2, CALL_TIMEOUT_TOLERANCE_NANOS);
            boolean timedOut = timeout > 0 && System.nanoTime() - this.startNanos >= timeout - tolerance;
            return timedOut ? Cancellation.timedOut(failure) : Cancellation.cancelled(failure);
        }

    }

}
