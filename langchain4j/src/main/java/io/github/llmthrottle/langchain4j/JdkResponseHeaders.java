package io.github.llmthrottle.langchain4j;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.jdk.JdkHttpClientBuilder;
import org.jspecify.annotations.Nullable;

/**
 * The headers of the responses of LangChain4j's default client ({@code JdkHttpClient}),
 * which reports an error response to its caller by status and body only: a 429's
 * {@code retry-after} and rate-limit headers would never reach the call pipeline. The
 * client is built on a {@code java.net.http.HttpClient} that records the headers of each
 * response whose request carries an attempt's mark (a header taken off before the request
 * is sent), for that attempt to read. LangChain4j offers no other way to them: its
 * {@code HttpException} has no headers, and its client builds its requests itself.
 */
final class JdkResponseHeaders {

    /** The header that marks an attempt's request; never sent. */
    static final String ATTEMPT_HEADER = "X-Llm-Throttle-Attempt";

    private static final AtomicLong ATTEMPTS = new AtomicLong();

    /** The attempts waiting for their response, by mark. */
    private final Map<String, AtomicReference<Map<String, List<String>>>> pending = new ConcurrentHashMap<>();

    /**
     * Whether {@code builder} builds LangChain4j's JDK client.
     * @param builder the builder
     * @return whether it is a {@link JdkHttpClientBuilder}
     */
    static boolean isJdk(HttpClientBuilder builder) {
        return builder instanceof JdkHttpClientBuilder;
    }

    /**
     * Builds the JDK client of {@code builder} on a {@code java.net.http.HttpClient} that
     * records headers for this instance's attempts and follows no redirect; the builder
     * is left as it was, but for the redirect policy of the
     * {@code java.net.http.HttpClient.Builder} it was given, which is
     * {@link HttpClient.Redirect#NEVER} from then on.
     * @param builder the JDK client builder of LangChain4j
     * @return the client
     */
    dev.langchain4j.http.client.HttpClient build(HttpClientBuilder builder) {
        JdkHttpClientBuilder jdk = (JdkHttpClientBuilder) builder;
        HttpClient.Builder original = jdk.httpClientBuilder();
        jdk.httpClientBuilder(new RecordingBuilder((original != null) ? original : HttpClient.newBuilder()));
        try {
            return jdk.build();
        }
        finally {
            jdk.httpClientBuilder(original);
        }
    }

    /**
     * Starts recording for one attempt.
     * @return the attempt's headers, to close when it has its response
     */
    AttemptHeaders open() {
        String mark = Long.toString(ATTEMPTS.incrementAndGet());
        AtomicReference<Map<String, List<String>>> slot = new AtomicReference<>(Map.of());
        this.pending.put(mark, slot);
        return new AttemptHeaders() {

            @Override
            public dev.langchain4j.http.client.HttpRequest tag(dev.langchain4j.http.client.HttpRequest request) {
                return LangChain4jResponses.withHeader(request, ATTEMPT_HEADER, mark);
            }

            @Override
            // outside JSpecify mode NullAway takes any AtomicReference.get() to be
            // nullable; this slot starts at Map.of() and is only set to a response's
            // headers
            @SuppressWarnings("NullAway")
            public Map<String, List<String>> recorded() {
                return slot.get();
            }

            @Override
            public void close() {
                JdkResponseHeaders.this.pending.remove(mark);
            }

        };
    }

    /** Where the headers of a marked request's response go, or null when not marked. */
    private @Nullable AtomicReference<Map<String, List<String>>> slot(HttpRequest request) {
        Optional<String> mark = request.headers().firstValue(ATTEMPT_HEADER);
        return mark.map(this.pending::get).orElse(null);
    }

    private static HttpRequest unmarked(HttpRequest request) {
        return HttpRequest.newBuilder(request, (name, value) -> !ATTEMPT_HEADER.equalsIgnoreCase(name)).build();
    }

    private static <T> HttpResponse<T> recorded(HttpResponse<T> response,
            @Nullable AtomicReference<Map<String, List<String>>> slot) {
        if (slot != null) {
            slot.set(response.headers().map());
        }
        return response;
    }

    /** The client builder LangChain4j configures, building a recording client. */
    private final class RecordingBuilder implements HttpClient.Builder {

        private final HttpClient.Builder delegate;

        RecordingBuilder(HttpClient.Builder delegate) {
            this.delegate = delegate;
        }

        @Override
        public HttpClient.Builder cookieHandler(CookieHandler cookieHandler) {
            this.delegate.cookieHandler(cookieHandler);
            return this;
        }

        @Override
        public HttpClient.Builder connectTimeout(Duration duration) {
            this.delegate.connectTimeout(duration);
            return this;
        }

        @Override
        public HttpClient.Builder sslContext(SSLContext sslContext) {
            this.delegate.sslContext(sslContext);
            return this;
        }

        @Override
        public HttpClient.Builder sslParameters(SSLParameters sslParameters) {
            this.delegate.sslParameters(sslParameters);
            return this;
        }

        @Override
        public HttpClient.Builder executor(Executor executor) {
            this.delegate.executor(executor);
            return this;
        }

        @Override
        public HttpClient.Builder followRedirects(HttpClient.Redirect policy) {
            this.delegate.followRedirects(policy);
            return this;
        }

        @Override
        public HttpClient.Builder version(HttpClient.Version version) {
            this.delegate.version(version);
            return this;
        }

        @Override
        public HttpClient.Builder priority(int priority) {
            this.delegate.priority(priority);
            return this;
        }

        @Override
        public HttpClient.Builder proxy(ProxySelector proxySelector) {
            this.delegate.proxy(proxySelector);
            return this;
        }

        @Override
        public HttpClient.Builder authenticator(Authenticator authenticator) {
            this.delegate.authenticator(authenticator);
            return this;
        }

        /**
         * Builds the client following no redirect, whatever the builder was told: every
         * request carries the client's credentials, and the JDK client would send all of
         * them on to whatever host a {@code Location} names.
         */
        @Override
        public HttpClient build() {
            return new RecordingClient(this.delegate.followRedirects(HttpClient.Redirect.NEVER).build());
        }

    }

    /**
     * Sends each request unmarked, and records the headers of a marked one's response.
     */
    private final class RecordingClient extends HttpClient {

        private final HttpClient delegate;

        RecordingClient(HttpClient delegate) {
            this.delegate = delegate;
        }

        @Override
        public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler)
                throws IOException, InterruptedException {
            return recorded(this.delegate.send(unmarked(request), handler), slot(request));
        }

        @Override
        public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler) {
            AtomicReference<Map<String, List<String>>> slot = slot(request);
            return this.delegate.sendAsync(unmarked(request), handler)
                .thenApply((response) -> recorded(response, slot));
        }

        @Override
        public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler,
                @Nullable PushPromiseHandler<T> pushPromiseHandler) {
            AtomicReference<Map<String, List<String>>> slot = slot(request);
            return this.delegate.sendAsync(unmarked(request), handler, pushPromiseHandler)
                .thenApply((response) -> recorded(response, slot));
        }

        @Override
        public WebSocket.Builder newWebSocketBuilder() {
            return this.delegate.newWebSocketBuilder();
        }

        @Override
        public Optional<CookieHandler> cookieHandler() {
            return this.delegate.cookieHandler();
        }

        @Override
        public Optional<Duration> connectTimeout() {
            return this.delegate.connectTimeout();
        }

        @Override
        public Redirect followRedirects() {
            return this.delegate.followRedirects();
        }

        @Override
        public Optional<ProxySelector> proxy() {
            return this.delegate.proxy();
        }

        @Override
        public SSLContext sslContext() {
            return this.delegate.sslContext();
        }

        @Override
        public SSLParameters sslParameters() {
            return this.delegate.sslParameters();
        }

        @Override
        public Optional<Authenticator> authenticator() {
            return this.delegate.authenticator();
        }

        @Override
        public Version version() {
            return this.delegate.version();
        }

        @Override
        public Optional<Executor> executor() {
            return this.delegate.executor();
        }

    }

}
