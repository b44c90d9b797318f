package io.github.llmthrottle.restclient;

import java.util.function.Supplier;

import io.github.llmthrottle.client.LlmThrottleRegistry;

import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.web.client.RestClient;

/**
 * Builds the {@code RestClient} of a configured client from Boot's
 * {@code RestClient.Builder}, so that Boot's HTTP client choice, message converters and
 * observation apply: base URL, default headers, the auth header of the provider's
 * dialect, timeouts, and the throttling request factory.
 * <p>
 * It never follows a redirect: every request carries the client's API key, and the HTTP
 * clients Boot may choose would send it on to the host a {@code Location} names (those
 * that drop a credential on the way drop {@code Authorization}, not {@code x-api-key} or
 * {@code api-key}). A 3xx answer reaches the caller as it is, its {@code Location}
 * readable, whatever {@code spring.http.clients.redirects} says.
 */
public final class ThrottledRestClientFactory {

    private final LlmThrottleRegistry registry;

    private final ThrottlingInterceptor interceptor;

    private final Supplier<RestClient.Builder> builders;

    private final ClientHttpRequestFactoryBuilder<?> requestFactoryBuilder;

    private final HttpClientSettings httpClientSettings;

    /**
     * Creates a factory.
     * @param registry the clients
     * @param interceptor the throttling interceptor
     * @param builders supplies a new builder for each client
     * @param requestFactoryBuilder builds the HTTP client of each client
     * @param httpClientSettings base HTTP client settings; each client's timeouts
     * override them
     */
    public ThrottledRestClientFactory(LlmThrottleRegistry registry, ThrottlingInterceptor interceptor,
            Supplier<RestClient.Builder> builders, ClientHttpRequestFactoryBuilder<?> requestFactoryBuilder,
            HttpClientSettings httpClientSettings) {
        this.registry = registry;
        this.interceptor = interceptor;
        this.builders = builders;
        this.requestFactoryBuilder = requestFactoryBuilder;
        this.httpClientSettings = httpClientSettings;
    }

    /**
     * Builds the {@code RestClient} of the client named {@code name}.
     * @param name the client name
     * @return a new RestClient
     */
    public RestClient create(String name) {
        ClientHttpSettings settings = ClientHttpSettings.of(this.registry, name, this.httpClientSettings);
        return this.builders.get()
            .baseUrl(settings.baseUrl())
            .defaultHeaders(settings::defaultHeaders)
            .defaultRequest((request) -> request.attribute(ThrottlingInterceptor.CLIENT_ATTRIBUTE, name))
            // the throttling factory rather than the interceptor on the RestClient, which
            // would buffer every body: a file download or upload of this client streams
            .requestFactory(ThrottlingClientHttpRequestFactory.forClient(
                    this.requestFactoryBuilder.build(settings.httpSettings()), settings.client(), this.interceptor))
            .build();
    }

}
