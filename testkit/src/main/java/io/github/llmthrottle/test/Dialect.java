package io.github.llmthrottle.test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The wire format of one provider API: how a request is read and what the responses,
 * errors, rate-limit headers and stream events look like.
 */
abstract class Dialect {

    static final JsonMapper JSON = JsonMapper.builder().build();

    static final Dialect ANTHROPIC = new AnthropicDialect();

    static final Dialect OPENAI = new OpenAiDialect();

    static final Dialect OPENAI_RESPONSES = new OpenAiResponsesDialect();

    static final Dialect OLLAMA = new OllamaDialect();

    private static final String[] WORDS = { "one", "two", "six", "ten", "red", "sky", "sea", "sun", "oak", "elm", "fox",
            "owl", "bee", "ant", "cat", "dog" };

    private static final char[] BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();

    abstract String requestIdHeader();

    abstract String newRequestId();

    /** Reads and validates a request body. */
    abstract SimRequest parse(JsonNode body, String apiKey) throws InvalidRequest;

    /** What admission debits, indexed by {@link RateLimiter.Dimension#ordinal()}. */
    abstract long[] demand(SimRequest request);

    /** Corrects the admission debit to the actual output. */
    abstract void settle(RateLimiter limiter, RateLimiter.Key key, SimRequest request, int outputTokens);

    abstract Map<String, String> rateLimitHeaders(Map<RateLimiter.Dimension, RateLimiter.Level> levels, Instant now,
            boolean roundRemaining);

    abstract String errorBody(ErrorSpec error, String requestId);

    abstract ErrorSpec error(int status);

    abstract ErrorSpec overloaded();

    abstract ErrorSpec quotaExceeded(Instant now);

    abstract ErrorSpec rateLimited(RateLimiter.Rejection rejection, String model);

    abstract ErrorSpec unauthorized(boolean missing);

    abstract ErrorSpec invalid(InvalidRequest invalid);

    abstract ErrorSpec unparseable();

    abstract ErrorSpec concurrencyExceeded(int status, int limit);

    abstract String completion(SimRequest request, String id, Instant now, String text, int outputTokens,
            boolean maxed);

    abstract String newMessageId();

    abstract List<String> streamStart(SimRequest request, String id, Instant now);

    abstract String streamDelta(SimRequest request, String id, Instant now, String text, boolean first);

    abstract List<String> streamEnd(SimRequest request, String id, Instant now, int outputTokens, boolean maxed);

    abstract String streamError(@Nullable String errorType);

    /** The {@code content-type} of a streamed answer: server-sent events. */
    String streamContentType() {
        return "text/event-stream; charset=utf-8";
    }

    /**
     * The {@code index}-th content delta of a stream (from 0), for APIs that number their
     * events; others send
     * {@link #streamDelta(SimRequest, String, Instant, String, boolean)}.
     */
    String streamDelta(SimRequest request, String id, Instant now, String text, int index) {
        return streamDelta(request, id, now, text, index == 0);
    }

    /**
     * The events that end a stream of {@code deltas} content deltas, for APIs that number
     * their events; others send
     * {@link #streamEnd(SimRequest, String, Instant, int, boolean)}.
     */
    List<String> streamEnd(SimRequest request, String id, Instant now, int outputTokens, boolean maxed, int deltas) {
        return streamEnd(request, id, now, outputTokens, maxed);
    }

    /**
     * The error event a fault sends after {@code deltas} content deltas, for APIs that
     * number their events or send more than the error's type; others send
     * {@link #streamError(String)}.
     */
    String streamError(SimRequest request, String id, Instant now, int deltas, Fault fault) {
        return streamError(fault.errorType());
    }

    /**
     * The deterministic text of output tokens {@code from .. from+count-1}: four
     * characters each.
     */
    static String text(int from, int count) {
        StringBuilder sb = new StringBuilder(count * 4);
        for (int i = from; i < from + count; i++) {
            sb.append(WORDS[i % WORDS.length]).append(' ');
        }
        return sb.toString();
    }

    static String randomId(String prefix, int length) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        StringBuilder sb = new StringBuilder(prefix);
        for (int i = 0; i < length; i++) {
            sb.append(BASE62[random.nextInt(BASE62.length)]);
        }
        return sb.toString();
    }

    static String json(JsonNode node) {
        return JSON.writeValueAsString(node);
    }

    static ObjectNode object() {
        return JSON.createObjectNode();
    }

    /**
     * The characters of the text in a content value: a string or an array of
     * blocks/parts.
     */
    static long contentChars(JsonNode content) {
        if (content.isString()) {
            return content.stringValue().length();
        }
        long chars = 0;
        if (content.isArray()) {
            for (JsonNode block : content) {
                chars += blockChars(block);
            }
        }
        else if (!content.isNull() && !content.isMissingNode()) {
            chars += json(content).length();
        }
        return chars;
    }

    /**
     * The characters of one block or part of a content array: its text, or its nested
     * content, or the length of its JSON.
     */
    static long blockChars(JsonNode block) {
        JsonNode text = block.get("text");
        if (text != null && text.isString()) {
            return text.stringValue().length();
        }
        if (block.isString()) {
            return block.stringValue().length();
        }
        if (block.has("content")) {
            return contentChars(block.get("content"));
        }
        return json(block).length();
    }

    static long messagesChars(JsonNode messages) {
        long chars = 0;
        for (JsonNode message : messages) {
            JsonNode content = message.get("content");
            if (content != null) {
                chars += contentChars(content);
            }
            JsonNode toolCalls = message.get("tool_calls");
            if (toolCalls != null) {
                chars += json(toolCalls).length();
            }
        }
        return chars;
    }

    static long toolsChars(JsonNode body) {
        JsonNode tools = body.get("tools");
        return (tools != null && !tools.isNull()) ? json(tools).length() : 0;
    }

    /** Reads an optional positive integer field; 0 when absent. */
    static int positiveInt(JsonNode body, String field, boolean required, Dialect dialect) throws InvalidRequest {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            if (required) {
                throw new InvalidRequest(field + ": Field required", field, null);
            }
            return 0;
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw (dialect == ANTHROPIC) ? new InvalidRequest(field + ": Input should be a valid integer", field, null)
                    : new InvalidRequest("Invalid type for '" + field + "': expected an integer.", field,
                            "invalid_type");
        }
        int n = value.intValue();
        if (n < 1) {
            throw (dialect == ANTHROPIC)
                    ? new InvalidRequest(field + ": Input should be greater than or equal to 1", field, null)
                    : new InvalidRequest("Invalid '" + field
                            + "': integer below minimum value. Expected a value >= 1, but got " + n + " instead.",
                            field, "integer_below_min_value");
        }
        return n;
    }

    static boolean bool(JsonNode body, String field) {
        JsonNode value = body.get(field);
        return value != null && value.isBoolean() && value.booleanValue();
    }

    static @Nullable String string(JsonNode body, String field) {
        JsonNode value = body.get(field);
        return (value != null && value.isString() && !value.stringValue().isEmpty()) ? value.stringValue() : null;
    }

    /** Ceil to the whole second, the way Anthropic's reset instants look. */
    static String resetInstant(Instant now, long nanosToFull) {
        Instant at = now.plusNanos(nanosToFull);
        Instant whole = Instant.ofEpochSecond(at.getEpochSecond() + ((at.getNano() > 0) ? 1 : 0));
        return whole.toString();
    }

}
