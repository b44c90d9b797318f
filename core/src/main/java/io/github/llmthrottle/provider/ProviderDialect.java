package io.github.llmthrottle.provider;

import java.net.URI;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The wire dialect a client speaks: where its API is unless configured otherwise, which
 * headers every request carries, how the API key is sent, and (read by
 * {@link RateLimitHeaders}, {@link ProviderError} and {@link UsageReader}) which
 * rate-limit headers, error envelope and usage fields it uses.
 */
public enum ProviderDialect {

    /**
     * Anthropic Messages API at {@code https://api.anthropic.com}: {@code x-api-key},
     * {@code anthropic-version: 2023-06-01}, {@code anthropic-ratelimit-*} headers.
     */
    ANTHROPIC(URI.create("https://api.anthropic.com"), Map.of("anthropic-version", "2023-06-01"),
            AuthScheme.apiKeyHeader("x-api-key")),

    /**
     * OpenAI-compatible Chat Completions at {@code https://api.openai.com/v1}:
     * {@code Authorization: Bearer}, {@code x-ratelimit-*} headers.
     */
    OPENAI(URI.create("https://api.openai.com/v1"), Map.of(), AuthScheme.BEARER),

    /**
     * Ollama's own API at {@code http://localhost:11434}: {@code /api/chat},
     * {@code /api/generate} and {@code /api/embed}, answers that stream as NDJSON unless
     * the request sets {@code "stream": false}, usage in {@code prompt_eval_count} and
     * {@code eval_count}; the API key, when set (Ollama's cloud), as
     * {@code Authorization: Bearer}; no rate-limit headers but the standard ones.
     */
    OLLAMA(URI.create("http://localhost:11434"), Map.of(), AuthScheme.BEARER),

    /**
     * Any other HTTP API, at a base URL that must be configured:
     * {@code Authorization: Bearer}, and only the standard headers (Retry-After,
     * RateLimit) are read.
     */
    GENERIC(null, Map.of(), AuthScheme.BEARER);

    private final @Nullable URI defaultBaseUrl;

    private final Map<String, String> defaultHeaders;

    private final AuthScheme authScheme;

    ProviderDialect(@Nullable URI defaultBaseUrl, Map<String, String> defaultHeaders, AuthScheme authScheme) {
        this.defaultBaseUrl = defaultBaseUrl;
        this.defaultHeaders = defaultHeaders;
        this.authScheme = authScheme;
    }

    /**
     * The provider's public API, used when a client configures no base URL.
     * @return the base URL, or {@code null} when the dialect has none and one must be
     * configured
     */
    public @Nullable URI defaultBaseUrl() {
        return this.defaultBaseUrl;
    }

    /**
     * Headers the provider expects on every request; configured headers of the same name
     * replace them.
     * @return the headers (empty when none)
     */
    public Map<String, String> defaultHeaders() {
        return this.defaultHeaders;
    }

    /**
     * How the provider expects the API key.
     * @return the scheme
     */
    public AuthScheme authScheme() {
        return this.authScheme;
    }

    /**
     * The headers that authenticate a request with {@code apiKey}.
     * @param apiKey the API key
     * @return the header and its value
     */
    public Map<String, String> authHeaders(String apiKey) {
        return this.authScheme.headers(apiKey);
    }

    /**
     * What a request to {@code uri} is in this dialect: a model call, a token count, or
     * anything else, passed through.
     * @param uri the request's URI
     * @return its class
     * @see EndpointClass
     */
    public EndpointClass classify(URI uri) {
        return EndpointClass.of(this, uri);
    }

    /**
     * Whether a request to {@code uri} whose body does not say whether it streams is
     * answered with a stream: Ollama's chat and generate endpoints stream unless the body
     * sets {@code "stream": false}; every other endpoint answers whole unless asked.
     * @param uri the request's URI
     * @return whether its answer streams by default
     * @see EndpointClass#streamsByDefault(ProviderDialect, String)
     */
    public boolean streamsByDefault(URI uri) {
        return EndpointClass.streamsByDefault(this, uri.getRawPath());
    }

}
