package io.github.llmthrottle.restclient;

import java.io.IOException;
import java.net.URI;
import java.util.List;

import io.github.llmthrottle.client.LlmThrottleRegistry;

import org.springframework.http.HttpMethod;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.InterceptingClientHttpRequestFactory;

/**
 * A {@link ClientHttpRequestFactory} that throttles the requests it creates for a
 * configured client's base URL host and creates every other request exactly as its
 * delegate does.
 *
 * <p>
 * A request to a configured host goes through the {@link ThrottlingInterceptor}, whose
 * retries need the body again, so it is buffered (as every request of a
 * {@code RestClient} with an interceptor is). Every other request is the delegate's own:
 * its body streams, as if llm-throttle were not there. That is why the RestClients and
 * RestTemplates Boot builds get this factory rather than the interceptor: an interceptor
 * makes Spring buffer the body of every request, whatever its host.
 */
public final class ThrottlingClientHttpRequestFactory implements ClientHttpRequestFactory {

    private final ClientHttpRequestFactory delegate;

    private final LlmThrottleRegistry registry;

    private final ClientHttpRequestFactory throttled;

    /**
     * Creates a factory.
     * @param delegate creates the requests, throttled or not
     * @param registry the configured clients, to tell which hosts are throttled
     * @param interceptor the throttling interceptor
     */
    public ThrottlingClientHttpRequestFactory(ClientHttpRequestFactory delegate, LlmThrottleRegistry registry,
            ThrottlingInterceptor interceptor) {
        this.delegate = delegate;
        this.registry = registry;
        this.throttled = new InterceptingClientHttpRequestFactory(delegate, List.of(interceptor));
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
        if (this.registry.resolve(uri) == null) {
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
