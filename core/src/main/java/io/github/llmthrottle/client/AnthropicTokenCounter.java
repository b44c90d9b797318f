package io.github.llmthrottle.client;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.json.JsonMapper;

/**
 * Counts input tokens with Anthropic's {@code POST /v1/messages/count_tokens}, over the
 * JDK's own {@link HttpClient}: a plain client of its own, so that counting never passes
 * through the model's admission, retries or settlement. The counting request goes to the
 * caller's URL with {@code /count_tokens} after its {@code /messages} path (the same base
 * URL, proxies and path prefixes included) and carries the caller's credentials, or the
 * client's API key when the caller sends none, and its {@code anthropic-version} and
 * {@code anthropic-beta} headers.
 * <p>
 * Its body is the caller's with only the fields token counting accepts ({@code model},
 * {@code messages}, {@code system}, {@code tools}, {@code tool_choice}, {@code thinking},
 * ...): the endpoint refuses {@code max_tokens}, {@code stream}, {@code temperature} and
 * the like. The fields are copied as they stream by, without building a tree, so a body
 * with large images or PDFs costs one pass and one copy.
 */
public final class AnthropicTokenCounter implements TokenCounter {

    /** The top-level fields of a Messages request that token counting accepts. */
    private static final Set<String> COUNTED_FIELDS = Set.of("messages", "system", "tools", "tool_choice", "thinking",
            "mcp_servers", "context_management", "output_config", "output_format", "cache_control", "speed");

    /** Headers of the caller's request that the count carries over, when present. */
    private static final String[] FORWARDED_HEADERS = { "x-api-key", "Authorization", "anthropic-version",
            "anthropic-beta" };

    private final ClientSettings settings;

    private final HttpClient http;

    private final Duration timeout;

    private final JsonMapper mapper = JsonMapper.builder().build();

    /**
     * Creates a counter for one client.
     * @param settings the client's settings: its API key and default headers
     * @param timeout how long one count may take at most, connecting included
     */
    public AnthropicTokenCounter(ClientSettings settings, Duration timeout) {
        this.settings = settings;
        this.timeout = timeout;
        Duration connect = (settings.connectTimeout().compareTo(timeout) < 0) ? settings.connectTimeout() : timeout;
        this.http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(connect)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    }

    @Override
    public CompletableFuture<Long> countInputTokens(String model, ProviderRequest request) {
        HttpRequest counting;
        try {
            counting = request(model, request);
        }
        catch (URISyntaxException | JacksonException | IllegalArgumentException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        CompletableFuture<HttpResponse<byte[]>> sent = this.http.sendAsync(counting,
                HttpResponse.BodyHandlers.ofByteArray());
        CompletableFuture<Long> counted = sent.thenApply(this::inputTokens);
        // the caller cancels what it stops waiting for: abort the exchange too
        counted.whenComplete((count, failure) -> {
            if (failure instanceof CancellationException) {
                sent.cancel(true);
            }
        });
        return counted;
    }

    private HttpRequest request(String model, ProviderRequest request) throws URISyntaxException {
        HttpRequest.Builder builder = HttpRequest.newBuilder(countTokensUri(request.uri()))
            .timeout(this.timeout)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(countingBody(model, request.body())));
        headers(request).forEach(builder::header);
        return builder.build();
    }

    /** The client's default headers, then its key, then what the caller sent. */
    private Map<String, String> headers(ProviderRequest request) {
        Map<String, String> headers = new LinkedHashMap<>();
        this.settings.defaultHeaders().forEach((name, value) -> put(headers, name, value));
        boolean callerAuthenticates = request.headers().first("x-api-key") != null
                || request.headers().first("Authorization") != null;
        if (!callerAuthenticates && this.settings.apiKey() != null) {
            this.settings.provider()
                .authHeaders(this.settings.apiKey())
                .forEach((name, value) -> put(headers, name, value));
        }
        for (String name : FORWARDED_HEADERS) {
            String value = request.headers().first(name);
            if (value != null) {
                put(headers, name, value);
            }
        }
        headers.keySet()
            .removeIf((name) -> name.equalsIgnoreCase("Content-Type") || name.equalsIgnoreCase("Content-Length"));
        return headers;
    }

    private static void put(Map<String, String> headers, String name, String value) {
        headers.keySet().removeIf((existing) -> existing.equalsIgnoreCase(name));
        headers.put(name, value);
    }

    /**
     * {@code .../messages} becomes {@code .../messages/count_tokens}, without the query.
     */
    static URI countTokensUri(URI messages) throws URISyntaxException {
        String path = (messages.getRawPath() != null) ? messages.getRawPath() : "";
        if (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        return new URI(messages.getScheme(), messages.getRawAuthority(), null, null, null)
            .resolve(path + "/count_tokens");
    }

    /**
     * The caller's body with the fields token counting accepts, and {@code model}.
     */
    byte[] countingBody(String model, byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length);
        try (JsonParser parser = this.mapper.createParser(body);
                JsonGenerator generator = this.mapper.createGenerator(out)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("The request body is not a JSON object");
            }
            generator.writeStartObject();
            generator.writeStringProperty("model", model);
            while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                String field = parser.currentName();
                parser.nextToken();
                if (COUNTED_FIELDS.contains(field)) {
                    generator.writeName(field);
                    generator.copyCurrentStructure(parser);
                }
                else {
                    parser.skipChildren();
                }
            }
            generator.writeEndObject();
        }
        return out.toByteArray();
    }

    private Long inputTokens(HttpResponse<byte[]> response) {
        if (response.statusCode() != 200) {
            throw new IllegalStateException("count_tokens answered " + response.statusCode());
        }
        Long count = inputTokens(response.body());
        if (count == null) {
            throw new IllegalStateException("count_tokens answered without input_tokens");
        }
        return count;
    }

    private @Nullable Long inputTokens(byte[] body) {
        try (JsonParser parser = this.mapper.createParser(body)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if ("input_tokens".equals(field) && value == JsonToken.VALUE_NUMBER_INT) {
                    long count = parser.getLongValue();
                    return (count >= 0) ? count : null;
                }
                parser.skipChildren();
            }
            return null;
        }
        catch (JacksonException ex) {
            return null;
        }
    }

}
