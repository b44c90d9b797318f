package io.github.llmthrottle.provider;

import java.util.Set;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads an Anthropic Messages or OpenAI Chat Completions request body in one streaming
 * pass, without building a tree: the top-level {@code model}, {@code max_tokens} (or
 * {@code max_completion_tokens}), {@code stream}, {@code stream_options.include_usage},
 * and the number of characters of text in the prompt fields. A body that is not JSON
 * gives {@link LlmRequest#unknown(int)}, never an exception.
 */
public final class RequestBodyReader {

    private static final Set<String> PROMPT_FIELDS = Set.of("messages", "system", "tools", "prompt", "input",
            "tool_choice", "functions");

    private final JsonMapper mapper;

    public RequestBodyReader(JsonMapper mapper) {
        this.mapper = mapper;
    }

    public RequestBodyReader() {
        this(JsonMapper.builder().build());
    }

    /**
     * Reads the request body.
     * @param body the body bytes
     * @return what was found
     */
    public LlmRequest read(byte[] body) {
        if (body.length == 0 || firstNonWhitespace(body) != '{') {
            return LlmRequest.unknown(body.length);
        }
        try (JsonParser parser = this.mapper.createParser(body)) {
            return read(parser, body.length);
        }
        catch (JacksonException ex) {
            return LlmRequest.unknown(body.length);
        }
    }

    private LlmRequest read(JsonParser parser, int bodyBytes) {
        String model = null;
        Long maxTokens = null;
        boolean stream = false;
        boolean includeUsage = false;
        long characters = 0;
        if (parser.nextToken() != JsonToken.START_OBJECT) {
            return LlmRequest.unknown(bodyBytes);
        }
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            JsonToken value = parser.nextToken();
            switch (field) {
                case "model" -> model = (value == JsonToken.VALUE_STRING) ? parser.getString() : model;
                case "max_tokens", "max_completion_tokens", "max_output_tokens" ->
                    maxTokens = longValue(parser, value, maxTokens);
                case "stream" -> stream = value == JsonToken.VALUE_TRUE;
                case "stream_options" -> includeUsage = includeUsage(parser, value);
                default -> {
                    if (PROMPT_FIELDS.contains(field)) {
                        characters += countText(parser, value);
                    }
                    else {
                        parser.skipChildren();
                    }
                }
            }
        }
        return new LlmRequest(model, maxTokens, stream, includeUsage, characters, bodyBytes);
    }

    private static @Nullable Long longValue(JsonParser parser, JsonToken value, @Nullable Long current) {
        if (value == JsonToken.VALUE_NUMBER_INT) {
            long tokens = parser.getLongValue();
            return (tokens >= 0) ? Long.valueOf(tokens) : current;
        }
        parser.skipChildren();
        return current;
    }

    private static boolean includeUsage(JsonParser parser, JsonToken value) {
        boolean include = false;
        if (value != JsonToken.START_OBJECT) {
            parser.skipChildren();
            return false;
        }
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            JsonToken token = parser.nextToken();
            if ("include_usage".equals(field)) {
                include = token == JsonToken.VALUE_TRUE;
            }
            else {
                parser.skipChildren();
            }
        }
        return include;
    }

    /**
     * Counts the characters of every string value (not property names) in the current
     * value.
     */
    private static long countText(JsonParser parser, JsonToken value) {
        if (value == JsonToken.VALUE_STRING) {
            return parser.getStringLength();
        }
        if (value != JsonToken.START_OBJECT && value != JsonToken.START_ARRAY) {
            return 0;
        }
        long characters = 0;
        int depth = 1;
        while (depth > 0) {
            JsonToken token = parser.nextToken();
            if (token == null) {
                break;
            }
            switch (token) {
                case START_OBJECT, START_ARRAY -> depth++;
                case END_OBJECT, END_ARRAY -> depth--;
                case VALUE_STRING -> characters += parser.getStringLength();
                default -> {
                }
            }
        }
        return characters;
    }

    private static int firstNonWhitespace(byte[] body) {
        for (byte b : body) {
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return b;
            }
        }
        return -1;
    }

}
