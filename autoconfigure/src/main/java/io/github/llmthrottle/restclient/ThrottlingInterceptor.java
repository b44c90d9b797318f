package io.github.llmthrottle.restclient;

import java.io.IOException;
import java.net.URI;

import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.client.Caller;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ProviderExchange;
import io.github.llmthrottle.client.ProviderRequest;
import io.github.llmthrottle.client.ProviderTarget;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.provider.EndpointClass;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.support.HttpRequestWrapper;

/**
 * The interceptor that throttles every model call and token count a {@code RestClient}
 * sends to a configured client: requests carrying the {@link #CLIENT_ATTRIBUTE} attribute
 * (set by the client's own {@code NAMERestClient}) or addressed to a configured base URL
 * go through the client's call pipeline ({@link ThrottledClient#exchange}), unless their
 * path makes them {@link EndpointClass#PASS_THROUGH}; every other request passes through
 * untouched. A request made inside a {@code @Throttled} invocation of its client carries
 * the invocation's priority, tenant and max-wait ({@link Caller#of}).
 */
public final class ThrottlingInterceptor implements ClientHttpRequestInterceptor {

    /** Request attribute naming the configured client a request belongs to. */
    public static final String CLIENT_ATTRIBUTE = ThrottlingInterceptor.class.getName() + ".client";

    /**
     * Set while this thread throttles a call: its attempts pass any further throttling
     * interceptor below untouched.
     */
    private static final ThreadLocal<Boolean> EXCHANGING = new ThreadLocal<>();

    private final LlmThrottleRegistry registry;

    public ThrottlingInterceptor(LlmThrottleRegistry registry) {
        this.registry = registry;
    }

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        ThrottledClient client = resolve(request);
        if (client == null || EXCHANGING.get() != null
                || client.endpointClass(request.getURI()) == EndpointClass.PASS_THROUGH) {
            // another host, an attempt of a call this thread is already throttling (a
            // RestClient with the interceptor on a factory that has it too): one
            // pipeline; or a request the provider does not meter (a file, a batch)
            return execution.execute(request, body);
        }
        // the caller is a @Throttled invocation on this thread, if any: read here, once
        ProviderRequest providerRequest = new ProviderRequest(request.getMethod().name(), request.getURI(),
                request.getHeaders()::getOrEmpty, body, false, null,
                Caller.of(ThrottleContext.current(), client.getName()));
        EXCHANGING.set(Boolean.TRUE);
        try {
            return new ThrottledClientHttpResponse(
                    client.exchange(providerRequest, new RestClientExchange(request, body, execution)));
        }
        finally {
            EXCHANGING.remove();
        }
    }

    private @Nullable ThrottledClient resolve(HttpRequest request) {
        if (request.getAttributes().get(CLIENT_ATTRIBUTE) instanceof String name) {
            ThrottledClient client = this.registry.getClient(name);
            if (client != null) {
                return client;
            }
        }
        return this.registry.resolve(request.getURI());
    }

    /**
     * One attempt through the rest of the interceptor chain: as the request says, or to a
     * deployment of its model (another URI, other authentication headers).
     */
    private record RestClientExchange(HttpRequest request, byte[] body,
            ClientHttpRequestExecution execution) implements ProviderExchange<RestClientProviderResponse> {

        @Override
        public RestClientProviderResponse execute() throws IOException {
            return new RestClientProviderResponse(this.execution.execute(this.request, this.body));
        }

        @Override
        public boolean canRedirect() {
            return true;
        }

        @Override
        public RestClientProviderResponse execute(ProviderTarget target) throws IOException {
            HttpHeaders headers = new HttpHeaders();
            headers.putAll(this.request.getHeaders());
            target.removedHeaders().forEach(headers::remove);
            target.headers().forEach(headers::set);
            HttpRequest redirected = new HttpRequestWrapper(this.request) {

                @Override
                public URI getURI() {
                    return target.uri();
                }

                @Override
                public HttpHeaders getHeaders() {
                    return headers;
                }

            };
            return new RestClientProviderResponse(this.execution.execute(redirected, this.body));
        }

    }

}
