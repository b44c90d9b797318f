package io.github.llmthrottle.provider;

import java.util.Set;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads an Anthropic Messages, OpenAI Chat Completions or OpenAI Responses request body
 * in one streaming pass, without building a tree: the top-level {@code model},
 * {@code max_tokens} (or {@code max_completion_tokens}, {@code max_output_tokens}),
 * {@code stream}, {@code stream_options.include_usage}, and the number of characters of
 * text in the prompt fields (the Responses API's {@code instructions} and {@code input}
 * among them). A body that is not JSON gives {@link LlmRequest#unknown(int)}, never an
 * exception.
 */
public final class RequestBodyReader {

    private static final Set<String> PROMPT_FIELDS = Set.of("messages", "system", "tools", "prompt", "input",
            "tool_choice", "functions", "instructions");

    /**
     * The tokens of a file the Responses API is given by {@code file_id} or
     * {@code file_url}: the body does not show it, so it costs what a document of a few
     * pages does.
     */
    static final long FILE_REFERENCE_TOKENS = 3_000;

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
        Prompt prompt = new Prompt();
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
                        count(parser, value, field, null, prompt);
                    }
                    else {
                        parser.skipChildren();
                    }
                }
            }
        }
        return new LlmRequest(model, maxTokens, stream, includeUsage, prompt.characters, prompt.mediaTokens, bodyBytes);
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
     * value, except images and documents, whose tokens are estimated apart
     * ({@link MediaTokens}): Anthropic's base64 {@code source.data} and
     * {@code source.url}, OpenAI's {@code image_url} (data URL or link),
     * {@code file_data} and {@code input_audio.data}, and the Responses API's
     * {@code input_image} and {@code input_file} given by reference.
     */
    private static void count(JsonParser parser, JsonToken value, @Nullable String field, @Nullable String parent,
            Prompt prompt) {
        switch (value) {
            case START_OBJECT -> countObject(parser, field, prompt);
            case START_ARRAY -> {
                JsonToken token;
                while ((token = parser.nextToken()) != JsonToken.END_ARRAY && token != null) {
                    count(parser, token, null, field, prompt);
                }
            }
            case VALUE_STRING -> {
                if (isMedia(parser, field, parent)) {
                    prompt.mediaTokens += isLink(parser) ? MediaTokens.MAX_IMAGE_TOKENS
                            : MediaTokens.ofBase64(parser.getString());
                }
                else {
                    prompt.characters += parser.getStringLength();
                }
            }
            default -> {
            }
        }
    }

    /**
     * Counts an object's values. A {@code file_id} or {@code file_url} of a Responses API
     * {@code input_image} or {@code input_file} part is estimated as the image or file it
     * names, never as the characters of the reference; the part's {@code type} may come
     * after it.
     */
    private static void countObject(JsonParser parser, @Nullable String field, Prompt prompt) {
        String type = null;
        long referenceCharacters = -1;
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = parser.currentName();
            JsonToken token = parser.nextToken();
            if (token == JsonToken.VALUE_STRING && ("file_id".equals(name) || "file_url".equals(name))) {
                referenceCharacters = Math.max(0, referenceCharacters) + parser.getStringLength();
                continue;
            }
            if (token == JsonToken.VALUE_STRING && "type".equals(name)) {
                type = parser.getString();
            }
            count(parser, token, name, field, prompt);
        }
        if (referenceCharacters >= 0) {
            if ("input_image".equals(type)) {
                prompt.mediaTokens += MediaTokens.MAX_IMAGE_TOKENS;
            }
            else if ("input_file".equals(type)) {
                prompt.mediaTokens += FILE_REFERENCE_TOKENS;
            }
            else {
                prompt.characters += referenceCharacters;
            }
        }
    }

    private static boolean isMedia(JsonParser parser, @Nullable String field, @Nullable String parent) {
        if (field == null) {
            return false;
        }
        return switch (field) {
            case "data" -> "source".equals(parent) || "input_audio".equals(parent);
            case "url" -> "source".equals(parent) || "image_url".equals(parent) || startsWith(parser, "data:");
            case "image_url", "file_data" -> true;
            default -> false;
        };
    }

    /** Whether the current string value is a link rather than inline data. */
    private static boolean isLink(JsonParser parser) {
        return startsWith(parser, "http:") || startsWith(parser, "https:");
    }

    private static boolean startsWith(JsonParser parser, String prefix) {
        if (parser.getStringLength() < prefix.length()) {
            return false;
        }
        char[] chars = parser.getStringCharacters();
        int offset = parser.getStringOffset();
        for (int i = 0; i < prefix.length(); i++) {
            if (Character.toLowerCase(chars[offset + i]) != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** What the prompt fields hold. */
    private static final class Prompt {

        long characters;

        long mediaTokens;

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
