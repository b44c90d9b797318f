package io.github.llmthrottle.restclient;

import io.github.llmthrottle.client.ClientSettings;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ThrottledClient;

import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.boot.http.client.HttpRedirects;
import org.springframework.http.HttpHeaders;

/**
 * The HTTP settings of one configured client, the same for its {@code RestClient} and its
 * {@code WebClient}: Boot's HTTP client settings with the client's timeouts and redirects
 * never followed, its base URL, and its default headers with the provider's
 * authentication headers for its API key.
 */
public final class ClientHttpSettings {

    private final ThrottledClient client;

    private final HttpClientSettings httpSettings;

    private ClientHttpSettings(ThrottledClient client, HttpClientSettings httpSettings) {
        this.client = client;
        this.httpSettings = httpSettings;
    }

    /**
     * The HTTP settings of the client named {@code name}.
     * @param registry the configured clients
     * @param name the client name
     * @param base the HTTP client settings of the application, which the client's
     * timeouts override
     * @return the client's HTTP settings
     * @throws IllegalArgumentException when no client is configured under that name
     */
    public static ClientHttpSettings of(LlmThrottleRegistry registry, String name, HttpClientSettings base) {
        ThrottledClient client = registry.getClient(name);
        if (client == null) {
            throw new IllegalArgumentException("No llm-throttle client named '" + name + "' is configured; known: "
                    + registry.getClients().keySet());
        }
        ClientSettings settings = client.getSettings();
        // an HTTP client that follows a redirect sends the key along, to whatever host
        // the Location names: a 3xx reaches the caller instead
        return new ClientHttpSettings(client, base.withTimeouts(settings.connectTimeout(), settings.readTimeout())
            .withRedirects(HttpRedirects.DONT_FOLLOW));
    }

    /**
     * The configured client.
     * @return the client
     */
    public ThrottledClient client() {
        return this.client;
    }

    /**
     * Boot's HTTP client settings with the client's timeouts, redirects not followed.
     * @return the settings to build the client's HTTP client with
     */
    public HttpClientSettings httpSettings() {
        return this.httpSettings;
    }

    /**
     * The client's base URL.
     * @return the base URL
     */
    public String baseUrl() {
        return this.client.getSettings().baseUrl().toString();
    }

    /**
     * Sets the client's default headers, then the provider's authentication headers for
     * its API key, if it has one.
     * @param headers the default headers of the client being built
     */
    public void defaultHeaders(HttpHeaders headers) {
        ClientSettings settings = this.client.getSettings();
        settings.defaultHeaders().forEach(headers::set);
        String apiKey = settings.apiKey();
        if (apiKey != null) {
            settings.provider().authHeaders(apiKey).forEach(headers::set);
        }
    }

}
