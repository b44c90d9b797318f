package io.github.llmthrottle.langchain4j;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.langchain4j.exception.HttpException;
import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.SuccessfulHttpResponse;
import dev.langchain4j.http.client.sse.ServerSentEventListener;
import dev.langchain4j.http.client.sse.ServerSentEventParser;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.client.Caller;
import io.github.llmthrottle.client.HeldAdmission;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ProviderExchange;
import io.github.llmthrottle.client.ProviderRequest;
import io.github.llmthrottle.client.ProviderTarget;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.client.ThrottledResponse;
import io.github.llmthrottle.provider.EndpointClass;
import org.jspecify.annotations.Nullable;

/**
 * The one-line hook that throttles a LangChain4j chat model built in code: LangChain4j's
 * models send every request through the pluggable HTTP client of
 * {@code langchain4j-http-client}, and this bean wraps the builder of one for a
 * configured client, <pre class="code">
 * OpenAiChatModel model = OpenAiChatModel.builder().httpClientBuilder(throttling.httpClientBuilder("openai", JdkHttpClient.builder())).apiKey(key).modelName("gpt-4o-mini").maxRetries(0).build();
 * </pre> ({@code JdkHttpClient} being LangChain4j's default client, or any other
 * {@link HttpClientBuilder}). Every model call of that model, blocking or streamed, then
 * goes through that client's call pipeline ({@link ThrottledClient#exchange}): admission,
 * calibration, 429 pause, circuit, retries per {@code llm.throttle.retry}, settlement
 * from the JSON body or the stream's events, totals, health and metrics; a request that
 * is not one ({@link EndpointClass#PASS_THROUGH}) goes to the delegate as it is. A model
 * call, blocking or not, is sent through the SPI's streaming {@code execute}, so that the
 * pipeline reads its body as every adapter's: a successful response whose body breaks
 * while read is not retried, since it was billed.
 * <p>
 * A model served by several deployments
 * ({@code llm.throttle.clients.NAME.models.MODEL.deployments}) is routed here as through
 * the {@code RestClient}: each attempt is rebuilt on the URL and headers of the
 * deployment that admits it soonest, and fails over to the next.
 * <p>
 * One retry layer: a LangChain4j chat model retries failures itself ({@code maxRetries},
 * 2 by default), including a throttling failure, so {@code maxRetries(0)} belongs in the
 * same line. The hook cannot read or set it; it logs a warning, once per model, when a
 * model sends again at once a request that llm-throttle gave up on. LangChain4j's SPI
 * reports an error response by its status and body only; for its default client
 * ({@code JdkHttpClient}) this hook reads the headers below it, so a 429's
 * {@code retry-after} and rate-limit headers are honoured. Through any other client they
 * do not reach the hook, and a retry waits as {@code llm.throttle.retry} says.
 * <p>
 * The default client follows no redirect, even when its
 * {@code java.net.http.HttpClient.Builder} was told to: the JDK client would send every
 * header of the request, the API key among them, on to whatever host a {@code Location}
 * names. The 3xx reaches the model as an error response. Any other client's redirects are
 * its own.
 * <p>
 * A streamed request ({@code StreamingChatModel}) returns at once, as the SPI requires:
 * it waits for its first admission holding no thread
 * ({@link io.github.llmthrottle.client.ThrottledClient#admitAhead}); once admitted, its
 * events are read and handed to the model's listener (and its retries wait) on a thread
 * of this bean's executor (auto-configured: the application's task executor, virtual
 * threads when {@code spring.threads.virtual.enabled}; else a cached pool of daemon
 * threads), with the caller's {@code @Throttled} context; never on a thread of
 * LangChain4j's or of {@code ForkJoinPool.commonPool()}. A stream the listener cancels is
 * closed and settled with what was read, and gives back its permit at once.
 */
public final class LangChain4jThrottling {

    private static final AtomicInteger THREADS = new AtomicInteger();

    private static final boolean JDK_CLIENT_PRESENT = isPresent("dev.langchain4j.http.client.jdk.JdkHttpClientBuilder");

    private final LlmThrottleRegistry registry;

    private final Executor streamExecutor;

    /**
     * Creates the hook; streamed requests wait and are read on a cached pool of daemon
     * threads.
     * @param registry the configured clients
     */
    public LangChain4jThrottling(LlmThrottleRegistry registry) {
        this(registry, daemonThreads());
    }

    /**
     * Creates the hook.
     * @param registry the configured clients
     * @param streamExecutor where admitted streamed requests are read, and their retries
     * wait (one task for the whole of each stream)
     */
    public LangChain4jThrottling(LlmThrottleRegistry registry, Executor streamExecutor) {
        this.registry = registry;
        this.streamExecutor = streamExecutor;
    }

    /**
     * The LangChain4j HTTP client builder whose clients send every request through
     * {@code delegate}'s client, throttled by the configured client {@code name}. Its
     * timeouts are {@code delegate}'s.
     * @param name a client configured under {@code llm.throttle.clients}
     * @param delegate the builder of the LangChain4j client that sends the requests
     * @return the builder to give the model's {@code httpClientBuilder(...)}
     * @throws IllegalArgumentException when no client is configured under that name, or
     * {@code delegate} is {@code null}
     */
    public HttpClientBuilder httpClientBuilder(String name, HttpClientBuilder delegate) {
        ThrottledClient client = this.registry.getClient(name);
        if (client == null) {
            throw new IllegalArgumentException(
                    "No llm-throttle client '" + name + "' is configured (llm.throttle.clients." + name
                            + "); configured: " + this.registry.getClients().keySet());
        }
        if (delegate == null) {
            throw new IllegalArgumentException("The LangChain4j HTTP client builder to throttle for client '" + name
                    + "' is null; pass the one the model would use, e.g. JdkHttpClient.builder()");
        }
        return new ThrottlingHttpClientBuilder(client, delegate);
    }

    private static boolean isPresent(String className) {
        try {
            Class.forName(className, false, LangChain4jThrottling.class.getClassLoader());
            return true;
        }
        catch (ClassNotFoundException | LinkageError ex) {
            return false;
        }
    }

    private static ExecutorService daemonThreads() {
        return Executors.newCachedThreadPool((task) -> {
            Thread thread = new Thread(task, "llm-throttle-langchain4j-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    private static boolean isSuccessful(int status) {
        return status >= 200 && status < 300;
    }

    /** Runs a listener's callback; what it throws does not stop the stream's release. */
    private static void tell(Runnable callback) {
        try {
            callback.run();
        }
        catch (RuntimeException ex) {
            // the listener's own failure: LangChain4j's clients ignore it the same way
        }
    }

    /** The delegate's builder, whose client is wrapped when built. */
    private final class ThrottlingHttpClientBuilder implements HttpClientBuilder {

        private final ThrottledClient client;

        private final HttpClientBuilder delegate;

        ThrottlingHttpClientBuilder(ThrottledClient client, HttpClientBuilder delegate) {
            this.client = client;
            this.delegate = delegate;
        }

        @Override
        public Duration connectTimeout() {
            return this.delegate.connectTimeout();
        }

        @Override
        public HttpClientBuilder connectTimeout(Duration timeout) {
            this.delegate.connectTimeout(timeout);
            return this;
        }

        @Override
        public Duration readTimeout() {
            return this.delegate.readTimeout();
        }

        @Override
        public HttpClientBuilder readTimeout(Duration timeout) {
            this.delegate.readTimeout(timeout);
            return this;
        }

        @Override
        public HttpClient build() {
            if (JDK_CLIENT_PRESENT && JdkResponseHeaders.isJdk(this.delegate)) {
                // LangChain4j's default client: its error responses' headers can be seen
                JdkResponseHeaders headers = new JdkResponseHeaders();
                return new ThrottlingHttpClient(this.client, headers.build(this.delegate), headers::open);
            }
            return new ThrottlingHttpClient(this.client, this.delegate.build(), () -> AttemptHeaders.NONE);
        }

    }

    private final class ThrottlingHttpClient implements HttpClient {

        private final ThrottledClient client;

        private final HttpClient delegate;

        private final Supplier<AttemptHeaders> attemptHeaders;

        private final StackedRetries stackedRetries;

        ThrottlingHttpClient(ThrottledClient client, HttpClient delegate, Supplier<AttemptHeaders> attemptHeaders) {
            this.client = client;
            this.delegate = delegate;
            this.attemptHeaders = attemptHeaders;
            this.stackedRetries = new StackedRetries(client.getName());
        }

        @Override
        public SuccessfulHttpResponse execute(HttpRequest request) {
            if (passesThrough(request)) {
                return this.delegate.execute(request);
            }
            // the body is read by the pipeline, as every adapter's: a successful response
            // whose body breaks while read is not retried (it was billed)
            this.stackedRetries.sending(request);
            ThrottledResponse<LangChain4jResponse> response;
            try {
                response = exchange(providerRequest(request, false, caller()),
                        new HandedOffExchange(this.delegate, request, this.attemptHeaders), null);
            }
            catch (LlmThrottleException ex) {
                this.stackedRetries.gaveUp(request);
                throw ex;
            }
            try (response) {
                byte[] body = response.body().readAllBytes();
                if (!isSuccessful(response.status())) {
                    // as the delegate reports an error response that is not retried
                    throw new HttpException(response.status(), new String(body, StandardCharsets.UTF_8));
                }
                return SuccessfulHttpResponse.builder()
                    .statusCode(response.status())
                    .headers(response.response().headerMap())
                    .body(body)
                    .build();
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }

        @Override
        public void execute(HttpRequest request, ServerSentEventParser parser, ServerSentEventListener listener) {
            if (passesThrough(request)) {
                this.delegate.execute(request, parser, listener);
                return;
            }
            // the first admission is waited for holding no thread; once admitted, the
            // call runs on the executor (where its retries wait, and the SPI reads the
            // stream), the request carrying its caller found here; the listener's
            // callbacks see the caller's @Throttled context there too
            ThrottleContext context = ThrottleContext.current();
            ProviderRequest providerRequest = providerRequest(request, true, caller());
            HeldAdmission.runWhenAdmitted(this.client.admitAhead(providerRequest),
                    LangChain4jThrottling.this.streamExecutor, (held) -> {
                        try (ThrottleContext.Scope scope = (context != null) ? ThrottleContext.open(context) : () -> {
                        }) {
                            stream(request, parser, listener, providerRequest, held);
                        }
                    }, (rejected) -> tell(() -> listener.onError(rejected)));
        }

        /** Whether the provider does not meter the request: sent as it is. */
        private boolean passesThrough(HttpRequest request) {
            return this.client.endpointClass(URI.create(request.url())) == EndpointClass.PASS_THROUGH;
        }

        private void stream(HttpRequest request, ServerSentEventParser parser, ServerSentEventListener listener,
                ProviderRequest providerRequest, @Nullable HeldAdmission held) {
            ThrottledResponse<LangChain4jResponse> response;
            try {
                response = exchange(providerRequest, new HandedOffExchange(this.delegate, request, this.attemptHeaders),
                        held);
            }
            catch (RuntimeException ex) {
                tell(() -> listener.onError(ex));
                return;
            }
            try (response) {
                InputStream body = response.body();
                if (!isSuccessful(response.status())) {
                    HttpException error = new HttpException(response.status(),
                            new String(body.readAllBytes(), StandardCharsets.UTF_8));
                    tell(() -> listener.onError(error));
                    return;
                }
                SuccessfulHttpResponse opened = SuccessfulHttpResponse.builder()
                    .statusCode(response.status())
                    .headers(response.response().headerMap())
                    .build();
                tell(() -> listener.onOpen(opened));
                // a listener that cancels closes the body: the stream is settled and its
                // permit given back when the parser stops
                parser.parse(body, listener);
                tell(listener::onClose);
            }
            catch (IOException | RuntimeException ex) {
                tell(() -> listener.onError(ex));
            }
        }

        /**
         * The caller of a request made on this thread: a {@code @Throttled} invocation of
         * the client, if any.
         */
        private Caller caller() {
            return Caller.of(ThrottleContext.current(), this.client.getName());
        }

        /**
         * One call of {@code caller} through the pipeline; a refusal or an I/O error as
         * the SPI's caller sees them.
         */
        private ProviderRequest providerRequest(HttpRequest request, boolean streaming, Caller caller) {
            String body = request.body();
            return new ProviderRequest(request.method().name(), URI.create(request.url()),
                    LangChain4jResponses.headers(request.headers()),
                    (body != null) ? body.getBytes(StandardCharsets.UTF_8) : new byte[0], streaming, null, caller);
        }

        /**
         * Sends a request through the pipeline, its first attempt on {@code held} if any.
         */
        private ThrottledResponse<LangChain4jResponse> exchange(ProviderRequest providerRequest,
                ProviderExchange<LangChain4jResponse> exchange, @Nullable HeldAdmission held) {
            try {
                return (held != null) ? held.exchange(providerRequest, exchange)
                        : this.client.exchange(providerRequest, exchange);
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }

    }

    /**
     * One attempt through the delegate, as the request says or to a deployment of its
     * model, through the SPI's streaming {@code execute} whatever the request: its body
     * is handed over live, for the pipeline to read (a blocking call's JSON as a stream's
     * events), where the blocking {@code execute} would read it below the pipeline, out
     * of sight of the status it came with.
     */
    private record HandedOffExchange(HttpClient delegate, HttpRequest request,
            Supplier<AttemptHeaders> attemptHeaders) implements ProviderExchange<LangChain4jResponse> {

        @Override
        public LangChain4jResponse execute() throws IOException {
            return StreamHandoff.send(this.delegate, this.request, this.attemptHeaders.get());
        }

        @Override
        public boolean canRedirect() {
            return true;
        }

        @Override
        public LangChain4jResponse execute(ProviderTarget target) throws IOException {
            return StreamHandoff.send(this.delegate, LangChain4jResponses.redirected(this.request, target),
                    this.attemptHeaders.get());
        }

    }

}
