package io.github.llmthrottle.restclient;

import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.function.Function;

import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.provider.EndpointClass;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpMethod;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.InterceptingClientHttpRequestFactory;

/**
 * A {@link ClientHttpRequestFactory} that throttles the model calls and token counts it
 * creates for a configured client's base URL host and creates every other request exactly
 * as its delegate does.
 *
 * <p>
 * A model call or token count ({@link EndpointClass}) to a configured host goes through
 * the {@link ThrottlingInterceptor}, whose retries need the body again, so it is buffered
 * (as every request of a {@code RestClient} with an interceptor is). Every other request
 * is the delegate's own, whether to another host or to a configured one (a batch, a file
 * download or upload, a model list): both its bodies stream, as if llm-throttle were not
 * there. That is why the RestClients and RestTemplates Boot builds, and the clients' own
 * {@code NAMERestClient}s, get this factory rather than the interceptor: an interceptor
 * makes Spring buffer the body of every request, whatever its host and path.
 */
public final class ThrottlingClientHttpRequestFactory implements ClientHttpRequestFactory {

    private final ClientHttpRequestFactory delegate;

    private final Function<URI, @Nullable ThrottledClient> clients;

    private final ClientHttpRequestFactory throttled;

    /**
     * Creates a factory.
     * @param delegate creates the requests, throttled or not
     * @param registry the configured clients, to tell which hosts are throttled
     * @param interceptor the throttling interceptor
     */
    public ThrottlingClientHttpRequestFactory(ClientHttpRequestFactory delegate, LlmThrottleRegistry registry,
            ThrottlingInterceptor interceptor) {
        this(delegate, registry::resolve, interceptor);
    }

    private ThrottlingClientHttpRequestFactory(ClientHttpRequestFactory delegate,
            Function<URI, @Nullable ThrottledClient> clients, ThrottlingInterceptor interceptor) {
        this.delegate = delegate;
        this.clients = clients;
        this.throttled = new InterceptingClientHttpRequestFactory(delegate, List.of(interceptor));
    }

    /**
     * A factory for the requests of one configured client's own {@code RestClient}: each
     * is told apart in that client's dialect, whatever its host.
     * @param delegate creates the requests, throttled or not
     * @param client the client
     * @param interceptor the throttling interceptor
     * @return the factory
     */
    public static ThrottlingClientHttpRequestFactory forClient(ClientHttpRequestFactory delegate,
            ThrottledClient client, ThrottlingInterceptor interceptor) {
        return new ThrottlingClientHttpRequestFactory(delegate, (uri) -> client, interceptor);
    }

    /**
     * {@code factory} wrapped in a throttling factory, or as it is when it already is
     * one.
     * @param factory the factory to wrap
     * @param registry the configured clients
     * @param interceptor the throttling interceptor
     * @return the throttling factory
     */
    public static ThrottlingClientHttpRequestFactory wrap(ClientHttpRequestFactory factory,
            LlmThrottleRegistry registry, ThrottlingInterceptor interceptor) {
        return (factory instanceof ThrottlingClientHttpRequestFactory throttling) ? throttling
                : new ThrottlingClientHttpRequestFactory(factory, registry, interceptor);
    }

    @Override
    public ClientHttpRequest createRequest(URI uri, HttpMethod httpMethod) throws IOException {
        ThrottledClient client = this.clients.apply(uri);
        if (client == null || client.endpointClass(uri) == EndpointClass.PASS_THROUGH) {
            return this.delegate.createRequest(uri, httpMethod);
        }
        return this.throttled.createRequest(uri, httpMethod);
    }

    /**
     * The factory that creates the requests, throttled or not.
     * @return the delegate
     */
    public ClientHttpRequestFactory getDelegate() {
        return this.delegate;
    }

}
