package io.github.llmthrottle.provider;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * The headers of a request or response as the throttle reads them, whatever the HTTP
 * library: each adapter passes a view of its own headers ({@code HttpHeaders::getOrEmpty}
 * for Spring, {@code Headers::values} for OkHttp) without copying them. Names are matched
 * case-insensitively.
 */
@FunctionalInterface
public interface Headers {

    /** No headers. */
    Headers EMPTY = (name) -> List.of();

    /**
     * The values of the header named {@code name}, matched case-insensitively.
     * @param name the header name
     * @return its values, empty when absent
     */
    List<String> values(String name);

    /**
     * The first value of the header named {@code name}.
     * @param name the header name
     * @return the value, or {@code null} when absent
     */
    default @Nullable String first(String name) {
        List<String> values = values(name);
        return values.isEmpty() ? null : values.get(0);
    }

    /**
     * The media type of the {@code Content-Type} header, without its parameters, in lower
     * case.
     * @return the media type (for example {@code text/event-stream}), or {@code null}
     * when absent
     */
    default @Nullable String mediaType() {
        String value = first("Content-Type");
        if (value == null) {
            return null;
        }
        int semicolon = value.indexOf(';');
        String type = ((semicolon >= 0) ? value.substring(0, semicolon) : value).strip();
        return type.isEmpty() ? null : type.toLowerCase(Locale.ROOT);
    }

    /**
     * Whether the body is a stream the provider writes as it generates: server-sent
     * events ({@code text/event-stream}) or newline-delimited JSON
     * ({@code application/x-ndjson}, Ollama's).
     * @return whether the {@code Content-Type} is one of a stream
     */
    default boolean isStream() {
        String type = mediaType();
        return "text/event-stream".equals(type) || "application/x-ndjson".equals(type);
    }

    /**
     * The {@code Content-Length} header.
     * @return the length in bytes, or {@code -1} when absent or not a number
     */
    default long contentLength() {
        String value = first("Content-Length");
        if (value == null) {
            return -1;
        }
        try {
            long length = Long.parseLong(value.strip());
            return (length >= 0) ? length : -1;
        }
        catch (NumberFormatException ex) {
            return -1;
        }
    }

    /**
     * Headers backed by a copy of {@code headers}.
     * @param headers the headers by name
     * @return the headers
     */
    static Headers of(Map<String, ? extends List<String>> headers) {
        Map<String, List<String>> copy = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.forEach((name, values) -> copy.merge(name, List.copyOf(values), (a, b) -> {
            List<String> all = new java.util.ArrayList<>(a);
            all.addAll(b);
            return List.copyOf(all);
        }));
        return (name) -> copy.getOrDefault(name, List.of());
    }

}
