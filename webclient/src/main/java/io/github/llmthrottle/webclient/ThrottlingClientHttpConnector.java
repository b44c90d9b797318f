package io.github.llmthrottle.webclient;

import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.ThrottleContextAccessor;
import io.github.llmthrottle.client.AsyncProviderExchange;
import io.github.llmthrottle.client.Caller;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ProviderRequest;
import io.github.llmthrottle.client.ProviderTarget;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.provider.EndpointClass;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.http.client.reactive.ClientHttpRequest;
import org.springframework.http.client.reactive.ClientHttpResponse;

/**
 * A {@link ClientHttpConnector} that throttles every request to a configured client's
 * base URL, and passes every other request to its delegate untouched and unbuffered.
 * <p>
 * A throttled request is first written into memory ({@link CapturedRequest}: a model
 * call's body is a small JSON document the pipeline reads for its model and tokens), then
 * sent through the client's non-blocking call pipeline
 * ({@link ThrottledClient#exchangeAsync}): admission waits without a thread, and each
 * attempt replays the captured request through the delegate, to the request's URI or to a
 * deployment of its model. The response reaches the {@code WebClient} as the pipeline
 * settled it: a JSON or error body read whole (its usage settled the call), or an event
 * stream passed on as it arrives, its events settling the call as the caller reads them
 * ({@link ThrottledClientHttpResponse}). Cancelling the subscription cancels the call,
 * leaking nothing. A throttling failure ({@code LlmThrottleException}) fails the
 * response; {@code WebClient} reports it as a {@code WebClientRequestException} whose
 * cause it is.
 * <p>
 * The call's {@code llm.throttle.call} observation nests in the {@code WebClient}'s
 * {@code http.client.requests} (read from the Reactor context, where the
 * {@code WebClient} puts it), and each attempt's {@code llm.throttle.attempt} is put in
 * the Reactor context of the delegate's exchange, under
 * {@code ObservationThreadLocalAccessor.KEY}, so that an HTTP library that observes its
 * exchanges (Reactor Netty, with its observations on) nests them in the attempt.
 */
public final class ThrottlingClientHttpConnector implements ClientHttpConnector {

    /**
     * Reads the observation current on this thread: Micrometer keeps it in one
     * thread-local shared by every registry, so the no-op registry reads it as well as
     * the application's would.
     */
    private static final ObservationRegistry CURRENT = ObservationRegistry.NOOP;

    private final ClientHttpConnector delegate;

    private final Supplier<LlmThrottleRegistry> registry;

    /**
     * Creates a connector.
     * @param delegate the connector that sends each request
     * @param registry the clients, looked up on each request (so that a connector built
     * early needs the registry only once requests flow)
     */
    public ThrottlingClientHttpConnector(ClientHttpConnector delegate, Supplier<LlmThrottleRegistry> registry) {
        this.delegate = delegate;
        this.registry = registry;
    }

    /**
     * The connector that sends each request.
     * @return the delegate
     */
    public ClientHttpConnector getDelegate() {
        return this.delegate;
    }

    @Override
    public Mono<ClientHttpResponse> connect(HttpMethod method, URI uri,
            Function<? super ClientHttpRequest, Mono<Void>> requestCallback) {
        ThrottledClient client = this.registry.get().resolve(uri);
        if (client == null || client.endpointClass(uri) == EndpointClass.PASS_THROUGH) {
            return this.delegate.connect(method, uri, requestCallback);
        }
        return Mono.defer(() -> {
            CapturedRequest captured = new CapturedRequest(method, uri);
            return requestCallback.apply(captured)
                .then(Mono.deferContextual(
                        (reactive) -> throttle(client, captured, context(reactive), observation(reactive))));
        });
    }

    /**
     * The invocation's context: from the Reactor context, where a {@code @Throttled}
     * method returning a {@code Mono} or {@code Flux} puts it, else this thread's.
     */
    private static @Nullable ThrottleContext context(ContextView reactive) {
        Object context = reactive.getOrDefault(ThrottleContextAccessor.KEY, null);
        return (context instanceof ThrottleContext throttleContext) ? throttleContext : ThrottleContext.current();
    }

    private Mono<ClientHttpResponse> throttle(ThrottledClient client, CapturedRequest captured,
            @Nullable ThrottleContext context, @Nullable Observation parent) {
        HttpHeaders headers = new HttpHeaders();
        headers.putAll(captured.getHeaders());
        ProviderRequest request = new ProviderRequest(captured.getMethod().name(), captured.getURI(),
                headers::getOrEmpty, captured.body(), false, null, Caller.of(context, client.getName()));
        Exchange exchange = new Exchange(captured, headers);
        // not suppressing cancellation: a cancelled subscription cancels the call
        return Mono.fromFuture(() -> {
            // the call's observation nests in the WebClient's, as in a RestClient's
            try (Observation.Scope observing = (parent != null) ? parent.openScope() : null) {
                return client.exchangeAsync(request, exchange);
            }
        }, false).map(ThrottledClientHttpResponse::of);
    }

    /**
     * The observation of the {@code WebClient}'s exchange, which it puts in the Reactor
     * context.
     */
    private static @Nullable Observation observation(ContextView reactive) {
        Object observation = reactive.getOrDefault(ObservationThreadLocalAccessor.KEY, null);
        return (observation instanceof Observation parent) ? parent : null;
    }

    /**
     * One attempt through the delegate: the captured request replayed as it was, or to a
     * deployment of its model (another URI, other authentication headers).
     */
    private final class Exchange implements AsyncProviderExchange<WebClientProviderResponse> {

        private final CapturedRequest captured;

        private final HttpHeaders headers;

        Exchange(CapturedRequest captured, HttpHeaders headers) {
            this.captured = captured;
            this.headers = headers;
        }

        @Override
        public CompletableFuture<WebClientProviderResponse> execute() {
            return send(this.captured.getURI(), this.headers);
        }

        @Override
        public boolean canRedirect() {
            return true;
        }

        @Override
        public CompletableFuture<WebClientProviderResponse> execute(ProviderTarget target) {
            HttpHeaders redirected = new HttpHeaders();
            redirected.putAll(this.headers);
            target.removedHeaders().forEach(redirected::remove);
            target.headers().forEach(redirected::set);
            return send(target.uri(), redirected);
        }

        private CompletableFuture<WebClientProviderResponse> send(URI uri, HttpHeaders headers) {
            Mono<WebClientProviderResponse> sent = ThrottlingClientHttpConnector.this.delegate
                .connect(this.captured.getMethod(), uri, (request) -> this.captured.replayOnto(request, headers))
                .map(WebClientProviderResponse::new);
            // the attempt's observation, current while the pipeline starts the exchange,
            // is the parent of the delegate's own (Reactor Netty's, for one)
            Observation attempt = CURRENT.getCurrentObservation();
            if (attempt != null) {
                sent = sent.contextWrite((reactive) -> reactive.put(ObservationThreadLocalAccessor.KEY, attempt));
            }
            return sent.toFuture();
        }

        @Override
        public CompletableFuture<byte[]> readBody(WebClientProviderResponse response, int limit) {
            return response.readBody(limit);
        }

    }

}
