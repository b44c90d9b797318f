package io.github.llmthrottle.provider;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads the {@code usage} of a response body or of one streamed event, in either dialect:
 * Anthropic {@code usage.input_tokens}, {@code cache_creation_input_tokens},
 * {@code cache_read_input_tokens} and {@code output_tokens} (also inside
 * {@code message_start.message.usage} and the cumulative {@code message_delta.usage}),
 * OpenAI {@code usage.prompt_tokens} and {@code completion_tokens} with
 * {@code prompt_tokens_details.cached_tokens}, and the Responses API's
 * {@code input_tokens} and {@code output_tokens} with
 * {@code input_tokens_details.cached_tokens} (also inside the {@code response} of its
 * {@code response.completed} event), and Ollama's top-level {@code prompt_eval_count} and
 * {@code eval_count} (of a whole answer, or of the last line of its NDJSON stream). A
 * top-level {@code usage} object wins over one inside {@code message} or
 * {@code response}, which wins over Ollama's counts. Anything else gives {@code null},
 * never an exception. Reads in one streaming pass, skipping everything but the usage: no
 * tree is built for the (often large) rest of the response.
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
     * Reads the usage of a JSON document held in part of an array (one SSE {@code data:}
     * line).
     * @param data the bytes
     * @param offset where the JSON starts
     * @param length how long it is
     * @return the usage, or {@code null} when there is none
     */
    public @Nullable Usage read(byte[] data, int offset, int length) {
        try (JsonParser parser = this.mapper.createParser(data, offset, length)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            Usage top = null;
            Usage inMessage = null;
            long promptEvalCount = -1;
            long evalCount = -1;
            while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if ("usage".equals(field) && value == JsonToken.START_OBJECT) {
                    top = usage(parser);
                }
                else if (("message".equals(field) || "response".equals(field)) && value == JsonToken.START_OBJECT) {
                    inMessage = usageInside(parser);
                }
                else if ("prompt_eval_count".equals(field)) {
                    promptEvalCount = Math.max(0, count(parser, value));
                }
                else if ("eval_count".equals(field)) {
                    evalCount = Math.max(0, count(parser, value));
                }
                else {
                    parser.skipChildren();
                }
            }
            if (top != null || inMessage != null) {
                return (top != null) ? top : inMessage;
            }
            // Ollama: an embedding counts its input only
            return (promptEvalCount >= 0 || evalCount >= 0)
                    ? new Usage(Math.max(0, promptEvalCount), Math.max(0, evalCount)) : null;
        }
        catch (JacksonException ex) {
            return null;
        }
    }

    /**
     * Whether a JSON document held in part of an array (one line of Ollama's NDJSON
     * stream) is the last of its stream: its top-level {@code done} is {@code true}.
     * @param data the bytes
     * @param offset where the JSON starts
     * @param length how long it is
     * @return whether the line ends its stream
     */
    public boolean isDone(byte[] data, int offset, int length) {
        try (JsonParser parser = this.mapper.createParser(data, offset, length)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                String field = parser.currentName();
                if (parser.nextToken() == JsonToken.VALUE_TRUE && "done".equals(field)) {
                    return true;
                }
                parser.skipChildren();
            }
            return false;
        }
        catch (JacksonException ex) {
            return false;
        }
    }

    /**
     * The usage of the object the parser is at the start of, which it reads to its end.
     */
    private static @Nullable Usage usageInside(JsonParser parser) {
        Usage usage = null;
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            JsonToken value = parser.nextToken();
            if ("usage".equals(field) && value == JsonToken.START_OBJECT) {
                usage = usage(parser);
            }
            else {
                parser.skipChildren();
            }
        }
        return usage;
    }

    /** Reads a {@code usage} object the parser is at the start of, to its end. */
    private static @Nullable Usage usage(JsonParser parser) {
        long prompt = 0;
        long completion = 0;
        long input = 0;
        long cacheCreation = 0;
        long cacheRead = 0;
        long cached = 0;
        long output = 0;
        boolean openAi = false;
        boolean anthropic = false;
        boolean responses = false;
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            JsonToken value = parser.nextToken();
            switch (field) {
                case "prompt_tokens" -> {
                    prompt = count(parser, value);
                    openAi = true;
                }
                case "completion_tokens" -> {
                    completion = count(parser, value);
                    openAi = true;
                }
                case "input_tokens" -> {
                    input = count(parser, value);
                    anthropic = true;
                }
                case "output_tokens" -> {
                    output = count(parser, value);
                    anthropic = true;
                }
                case "cache_creation_input_tokens" -> cacheCreation = count(parser, value);
                case "cache_read_input_tokens" -> cacheRead = count(parser, value);
                case "prompt_tokens_details" -> cached = cachedTokens(parser, value);
                case "input_tokens_details" -> {
                    // the Responses API: its input_tokens include the cached ones, as
                    // Chat Completions' prompt_tokens do
                    cached = cachedTokens(parser, value);
                    responses = true;
                }
                default -> parser.skipChildren();
            }
        }
        if (openAi) {
            return new Usage(prompt, completion, Math.min(cached, prompt), 0, prompt);
        }
        if (responses) {
            return new Usage(input, output, Math.min(cached, input), 0, input);
        }
        if (anthropic) {
            return Usage.ofCachedPrompt(input, cacheCreation, cacheRead, output);
        }
        return null;
    }

    /**
     * OpenAI's {@code cached_tokens} inside a {@code prompt_tokens_details} or
     * {@code input_tokens_details} object, which the parser is at the start of.
     */
    private static long cachedTokens(JsonParser parser, JsonToken value) {
        if (value != JsonToken.START_OBJECT) {
            parser.skipChildren();
            return 0;
        }
        long cached = 0;
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            JsonToken token = parser.nextToken();
            if ("cached_tokens".equals(field)) {
                cached = count(parser, token);
            }
            else {
                parser.skipChildren();
            }
        }
        return Math.max(0, cached);
    }

    /**
     * A token count as Jackson's {@code asLong(0)} reads it: numbers, numeric text, else
     * 0.
     */
    private static long count(JsonParser parser, JsonToken value) {
        switch (value) {
            case VALUE_NUMBER_INT:
                return parser.getLongValue();
            case VALUE_NUMBER_FLOAT:
                return (long) parser.getDoubleValue();
            case VALUE_STRING:
                try {
                    return Long.parseLong(parser.getString().strip());
                }
                catch (NumberFormatException ex) {
                    return 0;
                }
            default:
                parser.skipChildren();
                return 0;
        }
    }

}
