package io.github.llmthrottle.webclient;

import java.util.function.Supplier;

import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.restclient.ClientHttpSettings;

import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.boot.http.client.reactive.ClientHttpConnectorBuilder;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Builds the {@code WebClient} of a configured client from Boot's
 * {@code WebClient.Builder}, so that Boot's codecs and observation apply: base URL,
 * default headers, the auth header of the provider's dialect, the client's timeouts on a
 * connector of Boot's choice, and the throttling connector around it.
 * <p>
 * It never follows a redirect: every request carries the client's API key, which a
 * connector that follows one would send on to the host a {@code Location} names.
 */
public final class ThrottledWebClientFactory {

    private final LlmThrottleRegistry registry;

    private final Supplier<WebClient.Builder> builders;

    private final ClientHttpConnectorBuilder<?> connectorBuilder;

    private final HttpClientSettings httpClientSettings;

    /**
     * Creates a factory.
     * @param registry the clients
     * @param builders supplies a new builder for each client
     * @param connectorBuilder builds the connector of each client
     * @param httpClientSettings base HTTP client settings; each client's timeouts
     * override them
     */
    public ThrottledWebClientFactory(LlmThrottleRegistry registry, Supplier<WebClient.Builder> builders,
            ClientHttpConnectorBuilder<?> connectorBuilder, HttpClientSettings httpClientSettings) {
        this.registry = registry;
        this.builders = builders;
        this.connectorBuilder = connectorBuilder;
        this.httpClientSettings = httpClientSettings;
    }

    /**
     * Builds the {@code WebClient} of the client named {@code name}.
     * @param name the client name
     * @return a new WebClient
     */
    public WebClient create(String name) {
        ClientHttpSettings settings = ClientHttpSettings.of(this.registry, name, this.httpClientSettings);
        return this.builders.get()
            .baseUrl(settings.baseUrl())
            .defaultHeaders(settings::defaultHeaders)
            .clientConnector(new ThrottlingClientHttpConnector(this.connectorBuilder.build(settings.httpSettings()),
                    () -> this.registry))
            .build();
    }

}
