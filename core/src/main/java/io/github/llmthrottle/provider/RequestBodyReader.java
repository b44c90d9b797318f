package io.github.llmthrottle.provider;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads an Anthropic Messages, OpenAI Chat Completions or Responses, or Ollama chat,
 * generate or embed request body in one streaming pass, without building a tree: the
 * top-level {@code model}, {@code max_tokens} (or {@code max_completion_tokens},
 * {@code max_output_tokens}, Ollama's {@code options.num_predict}, of which a negative
 * value sets no cap), {@code stream} (when absent, what the endpoint does by default: see
 * {@link ProviderDialect#streamsByDefault}), {@code stream_options.include_usage}, the
 * number of characters of text in the prompt fields, the estimated tokens of its images
 * and documents, and the prefixes of the prompt that Anthropic's prompt cache may hold. A
 * body that is not JSON gives {@link LlmRequest#unknown(int)}, never an exception.
 * <p>
 * Images and documents are estimated as the provider counts them, never as the characters
 * of their data or reference ({@link MediaTokens}): a base64 image by its size, a base64
 * PDF by its pages, an image given by URL or file id at the most an image costs, a
 * document given by URL or file id at a configured number of tokens. A document whose
 * source is text ({@code "source":{"type":"text","data":...}}) is text. Tool definitions
 * count with their property names, which are part of their schemas.
 * <p>
 * Prompt caching: Anthropic caches the prompt in the order tools, system, messages, up to
 * each {@code cache_control} breakpoint, and reads from its cache the longest prefix an
 * earlier call wrote, looking back up to 20 blocks before a breakpoint. Each prefix that
 * ends at a block (a tool, a system block, a message or a content block) at or before a
 * breakpoint is hashed (in that order, whatever the order of the fields in the JSON) and
 * measured, so that admission can tell which part of the prompt the provider will count.
 */
public final class RequestBodyReader {

    /** Tokens of a document given by URL or file id, unless configured otherwise. */
    public static final long DEFAULT_DOCUMENT_TOKENS = 3_000;

    private static final Set<String> PROMPT_FIELDS = Set.of("messages", "system", "tools", "prompt", "input",
            "instructions", "tool_choice", "functions", "images");

    private static final byte[] CACHE_CONTROL = "\"cache_control\"".getBytes(StandardCharsets.US_ASCII);

    private final JsonMapper mapper;

    private final long documentTokens;

    /**
     * Creates a reader.
     * @param mapper the JSON mapper whose parser reads bodies
     * @param documentTokens the tokens of a document given by URL or file id
     */
    public RequestBodyReader(JsonMapper mapper, long documentTokens) {
        if (documentTokens < 0) {
            throw new IllegalArgumentException("documentTokens must not be negative, was " + documentTokens);
        }
        this.mapper = mapper;
        this.documentTokens = documentTokens;
    }

    public RequestBodyReader(JsonMapper mapper) {
        this(mapper, DEFAULT_DOCUMENT_TOKENS);
    }

    /**
     * Creates a reader.
     * @param documentTokens the tokens of a document given by URL or file id
     */
    public RequestBodyReader(long documentTokens) {
        this(JsonMapper.builder().build(), documentTokens);
    }

    public RequestBodyReader() {
        this(DEFAULT_DOCUMENT_TOKENS);
    }

    /**
     * Reads the body of a request that does not stream unless it says so.
     * @param body the body bytes
     * @return what was found
     */
    public LlmRequest read(byte[] body) {
        return read(body, false);
    }

    /**
     * Reads the request body.
     * @param body the body bytes
     * @param streamsByDefault whether the request's answer streams when the body has no
     * {@code stream} field (or a {@code null} one), as Ollama's chat does
     * @return what was found
     */
    public LlmRequest read(byte[] body, boolean streamsByDefault) {
        if (body.length == 0 || firstNonWhitespace(body) != '{') {
            return LlmRequest.unknown(body.length);
        }
        try (JsonParser parser = this.mapper.createParser(body)) {
            // hashing every character of the prompt is for prompts that mark a prefix for
            // the provider's cache; a scan of the bytes tells whether this one does
            return read(parser, body.length, contains(body, CACHE_CONTROL), streamsByDefault);
        }
        catch (JacksonException ex) {
            return LlmRequest.unknown(body.length);
        }
    }

    private LlmRequest read(JsonParser parser, int bodyBytes, boolean marksCache, boolean streamsByDefault) {
        String model = null;
        Long maxTokens = null;
        boolean stream = streamsByDefault;
        boolean includeUsage = false;
        boolean promptComplete = true;
        PromptTally prompt = new PromptTally(marksCache);
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
                case "stream" ->
                    stream = (value == JsonToken.VALUE_NULL) ? streamsByDefault : value == JsonToken.VALUE_TRUE;
                case "options" -> maxTokens = numPredict(parser, value, maxTokens);
                case "stream_options" -> includeUsage = includeUsage(parser, value);
                case "previous_response_id", "conversation" -> {
                    // the provider adds the earlier turns it keeps
                    promptComplete &= value == JsonToken.VALUE_NULL;
                    parser.skipChildren();
                }
                default -> {
                    if (PROMPT_FIELDS.contains(field)) {
                        prompt.enter(field);
                        count(parser, value, field, null, false, prompt);
                    }
                    else {
                        parser.skipChildren();
                    }
                }
            }
        }
        return new LlmRequest(model, maxTokens, stream, includeUsage, prompt.characters, prompt.mediaTokens, bodyBytes,
                prompt.prefixes(), promptComplete);
    }

    private static @Nullable Long longValue(JsonParser parser, JsonToken value, @Nullable Long current) {
        if (value == JsonToken.VALUE_NUMBER_INT) {
            long tokens = parser.getLongValue();
            return (tokens >= 0) ? Long.valueOf(tokens) : current;
        }
        parser.skipChildren();
        return current;
    }

    /**
     * Ollama's output cap, {@code options.num_predict}, of the {@code options} object the
     * parser is at the start of: {@code current} when it has none or a negative one
     * ({@code -1}: no cap, {@code -2}: up to the context window).
     */
    private static @Nullable Long numPredict(JsonParser parser, JsonToken value, @Nullable Long current) {
        Long cap = current;
        if (value != JsonToken.START_OBJECT) {
            parser.skipChildren();
            return cap;
        }
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            JsonToken token = parser.nextToken();
            if ("num_predict".equals(field)) {
                cap = longValue(parser, token, cap);
            }
            else {
                parser.skipChildren();
            }
        }
        return cap;
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
     * Counts (and hashes) the current value: the characters of every string value, and of
     * property names inside tool definitions; images and documents apart (OpenAI's
     * {@code image_url}, {@code file_data} and {@code input_audio.data}, Anthropic's
     * {@code source}, file ids and file URLs).
     * @param inArray whether the value is an element of an array (a block: its end is a
     * place the provider may have cached the prompt up to)
     */
    private void count(JsonParser parser, JsonToken value, @Nullable String field, @Nullable String parent,
            boolean inArray, PromptTally prompt) {
        switch (value) {
            case START_OBJECT -> countObject(parser, field, inArray, prompt);
            case START_ARRAY -> {
                prompt.hash('[');
                JsonToken token;
                while ((token = parser.nextToken()) != JsonToken.END_ARRAY && token != null) {
                    count(parser, token, null, field, true, prompt);
                }
                prompt.hash(']');
            }
            case VALUE_STRING -> {
                prompt.hash(parser);
                if (MediaFields.isMedia(parser, field, parent)) {
                    prompt.mediaTokens += MediaFields.isLink(parser) ? MediaTokens.MAX_IMAGE_TOKENS
                            : MediaTokens.ofBase64(parser.getString());
                }
                else {
                    prompt.characters += parser.getStringLength();
                }
            }
            default -> prompt.hash(parser);
        }
    }

    private void countObject(JsonParser parser, @Nullable String field, boolean inArray, PromptTally prompt) {
        Block block = new Block();
        prompt.hash('{');
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = parser.currentName();
            JsonToken token = parser.nextToken();
            if ("cache_control".equals(name)) {
                // the same block with or without a breakpoint is the same prefix
                block.breakpoint = cacheTtl(parser, token);
                continue;
            }
            prompt.hashName(name);
            if (prompt.countsNames()) {
                prompt.characters += name.length();
            }
            if ("type".equals(name) && token == JsonToken.VALUE_STRING) {
                block.type = parser.getString();
            }
            if ("source".equals(name) && token == JsonToken.START_OBJECT) {
                source(parser, block, prompt);
            }
            else if (("file_id".equals(name) || "file_url".equals(name)) && token == JsonToken.VALUE_STRING) {
                prompt.hash(parser);
                block.references++;
            }
            else {
                count(parser, token, name, field, false, prompt);
            }
        }
        prompt.hash('}');
        prompt.mediaTokens += MediaFields.referenceTokens(block.type, block.references, this.documentTokens);
        if (inArray) {
            prompt.blockEnded(block.breakpoint);
        }
    }

    /**
     * Reads an Anthropic {@code source} object: text is counted as text, base64 data by
     * what it holds, a URL or a file id by the kind of block it is in (decided when the
     * block ends, whatever the order of its fields).
     */
    private void source(JsonParser parser, Block block, PromptTally prompt) {
        String type = null;
        String data = null;
        prompt.hash('{');
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = parser.currentName();
            JsonToken token = parser.nextToken();
            prompt.hashName(name);
            if (token == JsonToken.VALUE_STRING) {
                prompt.hash(parser);
                switch (name) {
                    case "type" -> type = parser.getString();
                    case "data" -> data = parser.getString();
                    case "url", "file_id" -> block.references++;
                    default -> {
                        // media_type: the data's kind, sniffed from its bytes instead
                    }
                }
            }
            else {
                // "content": a custom content document, counted as the blocks it holds
                count(parser, token, name, "source", false, prompt);
            }
        }
        prompt.hash('}');
        if (data != null) {
            if ("text".equals(type)) {
                prompt.characters += data.length();
            }
            else {
                prompt.mediaTokens += MediaTokens.ofBase64(data);
            }
        }
    }

    /**
     * The TTL of a {@code cache_control} value, or {@code null} when it marks nothing.
     */
    private static @Nullable Duration cacheTtl(JsonParser parser, JsonToken value) {
        if (value != JsonToken.START_OBJECT) {
            parser.skipChildren();
            return null;
        }
        Duration ttl = PromptPrefix.FIVE_MINUTES;
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = parser.currentName();
            JsonToken token = parser.nextToken();
            if ("ttl".equals(name) && token == JsonToken.VALUE_STRING && "1h".equals(parser.getString())) {
                ttl = PromptPrefix.ONE_HOUR;
            }
            else {
                parser.skipChildren();
            }
        }
        return ttl;
    }

    private static boolean contains(byte[] body, byte[] part) {
        outer: for (int i = 0; i <= body.length - part.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (body[i + j] != part[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static int firstNonWhitespace(byte[] body) {
        for (byte b : body) {
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return b;
            }
        }
        return -1;
    }

    /** What one JSON object (a content block, a tool, a message) holds. */
    private static final class Block {

        @Nullable String type;

        /** Images or documents given by URL or file id. */
        int references;

        /**
         * The TTL of the block's {@code cache_control}, or {@code null} when it has none.
         */
        @Nullable Duration breakpoint;

    }

}
