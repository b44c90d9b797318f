package io.github.llmthrottle.autoconfigure;

import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.restclient.ThrottlingClientHttpRequestFactory;
import io.github.llmthrottle.restclient.ThrottlingInterceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.http.client.ClientHttpRequestFactory;

/**
 * Boot's {@link ClientHttpRequestFactoryBuilder}, with every factory it builds wrapped in
 * a {@link ThrottlingClientHttpRequestFactory}: the RestClients and RestTemplates built
 * from Boot's builders throttle their requests to a configured client's host and leave
 * every other request as it was.
 *
 * <p>
 * The registry and the interceptor are looked up when a factory is built, not when this
 * builder is created, since Boot creates the builder bean before the RestClient builder
 * that llm-throttle's own beans are created from.
 */
final class ThrottlingRequestFactoryBuilder implements ClientHttpRequestFactoryBuilder<ClientHttpRequestFactory> {

    private final ClientHttpRequestFactoryBuilder<?> delegate;

    private final ObjectProvider<LlmThrottleRegistry> registry;

    private final ObjectProvider<ThrottlingInterceptor> interceptor;

    ThrottlingRequestFactoryBuilder(ClientHttpRequestFactoryBuilder<?> delegate,
            ObjectProvider<LlmThrottleRegistry> registry, ObjectProvider<ThrottlingInterceptor> interceptor) {
        this.delegate = delegate;
        this.registry = registry;
        this.interceptor = interceptor;
    }

    @Override
    public ClientHttpRequestFactory build(@Nullable HttpClientSettings settings) {
        return ThrottlingClientHttpRequestFactory.wrap(this.delegate.build(settings), this.registry.getObject(),
                this.interceptor.getObject());
    }

    /**
     * The builder that builds factories without the throttling wrapper: for the clients'
     * own {@code NAMERestClient}s, which carry the interceptor themselves.
     * @param builder a builder, wrapped or not
     * @return the builder without the wrapper
     */
    static ClientHttpRequestFactoryBuilder<?> unwrap(ClientHttpRequestFactoryBuilder<?> builder) {
        return (builder instanceof ThrottlingRequestFactoryBuilder throttling) ? throttling.delegate : builder;
    }

}
