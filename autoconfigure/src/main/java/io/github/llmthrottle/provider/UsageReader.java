package io.github.llmthrottle.provider;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads the {@code usage} of a response body or of one streamed event, in either dialect:
 * Anthropic {@code usage.input_tokens + cache_creation_input_tokens} and {@code output_tokens}
 * (also inside {@code message_start.message.usage} and the cumulative {@code message_delta.usage}),
 * OpenAI {@code usage.prompt_tokens} and {@code completion_tokens}. Anything else gives
 * {@code null}, never an exception.
 */
public final class UsageReader {

    private final JsonMapper mapper;

    public UsageReader(JsonMapper mapper) {
        this.mapper = mapper;
    }

    public UsageReader() {
        this(JsonMapper.builder().build());
    }

    /**
     * Reads the usage of a complete JSON response body.
     * @param body the body
     * @return the usage, or {@code null} when the body has none
     */
    public @Nullable Usage read(byte[] body) {
        return read(body, 0, body.length);
    }

    /**
     * Reads the usage of a JSON document held in part of an array (one SSE {@code data:} line).
     * @param data the bytes
     * @param offset where the JSON starts
     * @param length how long it is
     * @return the usage, or {@code null} when there is none
     */
    public @Nullable Usage read(byte[] data, int offset, int length) {
        try {
            JsonNode root = this.mapper.readTree(data, offset, length);
            return (root != null) ? read(root) : null;
        }
        catch (JacksonException ex) {
            return null;
        }
    }

    /**
     * Reads the usage of a parsed document.
     * @param root the document
     * @return the usage, or {@code null} when there is none
     */
    public @Nullable Usage read(JsonNode root) {
        JsonNode usage = root.path("usage");
        if (!usage.isObject()) {
            usage = root.path("message").path("usage");
        }
        if (!usage.isObject()) {
            return null;
        }
        if (usage.has("prompt_tokens") || usage.has("completion_tokens")) {
            return new Usage(usage.path("prompt_tokens").asLong(0), usage.path("completion_tokens").asLong(0));
        }
        if (usage.has("input_tokens") || usage.has("output_tokens")) {
            long input = usage.path("input_tokens").asLong(0) + usage.path("cache_creation_input_tokens").asLong(0);
            return new Usage(input, usage.path("output_tokens").asLong(0));
        }
        return null;
    }

}
