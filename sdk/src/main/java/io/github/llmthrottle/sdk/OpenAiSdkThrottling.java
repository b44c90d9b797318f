package io.github.llmthrottle.sdk;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import com.openai.core.RequestOptions;
import com.openai.core.http.Headers;
import com.openai.core.http.HttpClient;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpRequestBody;
import com.openai.core.http.HttpResponse;
import com.openai.errors.OpenAIException;
import com.openai.errors.OpenAIIoException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ProviderTarget;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.client.ThrottledResponse;
import io.github.llmthrottle.provider.EndpointClass;
import io.github.llmthrottle.sdk.ThrottlingSdkHttpClient.SdkResponse;
import org.jspecify.annotations.Nullable;

/**
 * The one-line hook that throttles an {@code openai-java} client built without Spring AI.
 * That SDK has no interceptor (as of 4.49), but its clients send every request through
 * the {@link HttpClient} of their {@code ClientOptions}: this bean decorates one for a
 * configured client, <pre class="code">
 * OpenAIClient client = new OpenAIClientImpl(ClientOptions.builder().fromEnv().httpClient(throttling.httpClient("openai", OkHttpClient.builder().build())).maxRetries(0).build());
 * </pre> ({@code OkHttpClient} being the SDK's
 * {@code com.openai.client.okhttp.OkHttpClient}, or any other {@link HttpClient}). Every
 * model call then goes through that client's call pipeline
 * ({@link ThrottledClient#exchange}): admission, calibration, 429 pause, circuit, retries
 * per {@code llm.throttle.retry}, settlement from the JSON body or the stream's events,
 * totals, health and metrics. Every other request ({@link EndpointClass#PASS_THROUGH}:
 * batches, files, uploads, model lists) is sent as the SDK built it, its body unread.
 * <p>
 * A model served by several deployments
 * ({@code llm.throttle.clients.NAME.models.MODEL.deployments}) is routed here as through
 * the {@code RestClient}: each attempt is sent on to the deployment that admits it
 * soonest, its request rebuilt on that deployment's URL with its API key in the client's
 * authentication header ({@code Authorization: Bearer}), and fails over to the next.
 * <p>
 * Redirects are the SDK's HTTP client's: the SDK's own OkHttp client follows them, to any
 * host, dropping only {@code Authorization} on the way, and offers no way to turn that
 * off from outside it (unlike the OkHttp interceptor under Spring AI, which refuses them
 * for a configured host).
 * <p>
 * One retry layer: {@code ClientOptions} wraps the given client in the SDK's retry loop,
 * so a retry of the SDK would pass through llm-throttle again. Every response handed back
 * carries {@code x-should-retry: false}, which that loop obeys, and a throttling failure
 * is thrown as the {@link LlmThrottleException} it is, which it does not retry; nor does
 * it retry the {@code OpenAIException} an I/O error llm-throttle gave up on is thrown as
 * (a cancellation, a successful response whose body broke while read: it was billed).
 * {@code maxRetries(0)} in the same line also turns off its retries of I/O errors.
 * <p>
 * A {@code @Throttled} invocation's context is read on the calling thread, and its caller
 * carried to the thread an asynchronous request ({@code OpenAIClientAsync}) runs on; that
 * request waits for admission on a thread of the executor given (auto-configured: the
 * application's task executor), or of a cached pool of daemon threads; never on the
 * caller's, nor on {@code ForkJoinPool.commonPool()}.
 */
public final class OpenAiSdkThrottling {

    static final String SHOULD_RETRY_HEADER = "x-should-retry";

    private final LlmThrottleRegistry registry;

    private final Executor asyncExecutor;

    /**
     * Creates the hook; asynchronous requests wait for admission on a cached pool of
     * daemon threads.
     * @param registry the configured clients
     */
    public OpenAiSdkThrottling(LlmThrottleRegistry registry) {
        this(registry, SdkCalls.daemonThreads());
    }

    /**
     * Creates the hook.
     * @param registry the configured clients
     * @param asyncExecutor where asynchronous requests wait for admission and are sent
     */
    public OpenAiSdkThrottling(LlmThrottleRegistry registry, Executor asyncExecutor) {
        this.registry = registry;
        this.asyncExecutor = asyncExecutor;
    }

    /**
     * The SDK {@link HttpClient} that sends through {@code delegate} every request of an
     * SDK client, throttled by the configured client {@code name}.
     * @param name a client configured under {@code llm.throttle.clients}
     * @param delegate the SDK's HTTP client that sends the requests (closed with the
     * returned one)
     * @return the HTTP client to give the SDK's {@code ClientOptions}
     * @throws IllegalArgumentException when no client is configured under that name
     */
    public HttpClient httpClient(String name, HttpClient delegate) {
        ThrottledClient client = SdkCalls.client(this.registry, name);
        return new ThrottlingHttpClient(client, delegate);
    }

    /**
     * {@code request} as it goes to a deployment: the target's URI as its base URL, with
     * no path segments of its own, and the target's query parameters; the target's
     * headers (the deployment's API key among them) replace the request's of the same
     * name, case insensitively.
     * @param request the request as the SDK built it
     * @param target where the attempt goes
     * @return the request to send
     */
    static HttpRequest redirected(HttpRequest request, ProviderTarget target) {
        HttpRequest.Builder redirected = request.toBuilder()
            .baseUrl(SdkCalls.baseUrl(target.uri()))
            .pathSegments(List.of())
            .queryParams(SdkCalls.queryParameters(target.uri()));
        target.removedHeaders().forEach(redirected::removeHeaders);
        target.headers().forEach(redirected::replaceHeaders);
        return redirected.build();
    }

    private static byte[] bytes(@Nullable HttpRequestBody body) {
        if (body == null) {
            return new byte[0];
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        body.writeTo(out);
        return out.toByteArray();
    }

    /**
     * The SDK's HTTP client this one wraps, throttled: SDK-level types onto the shared
     * path of a request.
     */
    private final class ThrottlingHttpClient extends ThrottlingSdkHttpClient<HttpRequest, RequestOptions, HttpResponse>
            implements HttpClient {

        private final HttpClient delegate;

        ThrottlingHttpClient(ThrottledClient client, HttpClient delegate) {
            super(client, OpenAiSdkThrottling.this.asyncExecutor);
            this.delegate = delegate;
        }

        @Override
        public HttpResponse execute(HttpRequest request, RequestOptions requestOptions) {
            return send(request, requestOptions);
        }

        @Override
        public CompletableFuture<HttpResponse> executeAsync(HttpRequest request, RequestOptions requestOptions) {
            return sendAsync(request, requestOptions);
        }

        @Override
        public void close() {
            this.delegate.close();
        }

        @Override
        URI uri(HttpRequest request) {
            return URI.create(request.url());
        }

        @Override
        String method(HttpRequest request) {
            return request.method().name();
        }

        @Override
        io.github.llmthrottle.provider.Headers headers(HttpRequest request) {
            return request.headers()::values;
        }

        @Override
        byte[] body(HttpRequest request) {
            return bytes(request.body());
        }

        @Override
        HttpRequest withBody(HttpRequest request, byte[] body) {
            HttpRequestBody requestBody = request.body();
            return request.toBuilder()
                .body((requestBody != null) ? new BytesBody(body, requestBody.contentType()) : null)
                .build();
        }

        @Override
        HttpRequest redirected(HttpRequest request, ProviderTarget target) {
            return OpenAiSdkThrottling.redirected(request, target);
        }

        @Override
        HttpResponse sendAsBuilt(HttpRequest request, RequestOptions options) {
            return this.delegate.execute(request, options);
        }

        @Override
        CompletableFuture<HttpResponse> sendAsBuiltAsync(HttpRequest request, RequestOptions options) {
            return this.delegate.executeAsync(request, options);
        }

        @Override
        SdkResponse<HttpResponse> attempt(HttpRequest request, RequestOptions options) throws IOException {
            try {
                HttpResponse response = this.delegate.execute(request, options);
                return new SdkResponse<>(response, response.statusCode(), response.headers()::values, response::body,
                        response::close);
            }
            catch (OpenAIIoException ex) {
                throw (ex.getCause() instanceof IOException io) ? io : new IOException(ex.getMessage(), ex);
            }
        }

        @Override
        RuntimeException notRetried(IOException ex) {
            return new OpenAIException(ex.getMessage(), ex);
        }

        @Override
        HttpResponse throttled(ThrottledResponse<SdkResponse<HttpResponse>> response) {
            return new ThrottledHttpResponse(response);
        }

    }

    /** A request body of bytes in memory, sent again on every attempt. */
    private record BytesBody(byte[] bytes, @Nullable String type) implements HttpRequestBody {

        @Override
        public void writeTo(OutputStream outputStream) {
            try {
                outputStream.write(this.bytes);
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }

        @Override
        public @Nullable String contentType() {
            return this.type;
        }

        @Override
        public long contentLength() {
            return this.bytes.length;
        }

        @Override
        public boolean repeatable() {
            return true;
        }

        @Override
        public void close() {
        }

    }

    /**
     * The pipeline's response as the SDK's: the provider's status and headers plus
     * {@code x-should-retry: false}, and the body the pipeline hands out (bytes in
     * memory, or the live stream settled as it is read).
     */
    private static final class ThrottledHttpResponse implements HttpResponse {

        private final ThrottledResponse<SdkResponse<HttpResponse>> response;

        private final Headers headers;

        ThrottledHttpResponse(ThrottledResponse<SdkResponse<HttpResponse>> response) {
            this.response = response;
            this.headers = response.response()
                .response()
                .headers()
                .toBuilder()
                .replace(SHOULD_RETRY_HEADER, "false")
                .build();
        }

        @Override
        public int statusCode() {
            return this.response.status();
        }

        @Override
        public Headers headers() {
            return this.headers;
        }

        @Override
        public InputStream body() {
            try {
                return this.response.body();
            }
            catch (IOException ex) {
                throw new OpenAIIoException(ex.getMessage(), ex);
            }
        }

        @Override
        public void close() {
            this.response.close();
        }

    }

}
