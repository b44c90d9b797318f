package io.github.llmthrottle.provider;

import java.util.Map;

/**
 * How a provider expects the API key: the header that carries it and what precedes the
 * key in that header's value. Holds no key itself, so it is safe to print.
 *
 * @param header the name of the header that carries the key
 * @param prefix the text before the key in the header's value ({@code "Bearer "}, or
 * empty)
 */
public record AuthScheme(String header, String prefix) {

    /** {@code Authorization: Bearer KEY}, as OpenAI and most HTTP APIs expect. */
    public static final AuthScheme BEARER = new AuthScheme("Authorization", "Bearer ");

    /**
     * The key as the whole value of a header of its own, such as Anthropic's
     * {@code x-api-key}.
     * @param header the header's name
     * @return the scheme
     */
    public static AuthScheme apiKeyHeader(String header) {
        return new AuthScheme(header, "");
    }

    /**
     * The headers that authenticate a request with {@code apiKey}.
     * @param apiKey the API key
     * @return the header and its value
     */
    public Map<String, String> headers(String apiKey) {
        return Map.of(this.header, this.prefix + apiKey);
    }

}
