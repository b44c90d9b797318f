package io.github.llmthrottle.client;

import io.github.llmthrottle.retry.Classification.Outcome;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.json.JsonMapper;

/**
 * The error envelopes a provider may send inside a 200 event stream, read from one
 * {@code data:} line (or one line of an NDJSON stream): Anthropic's {@code error} event,
 * OpenAI's error chunk, the Responses API's {@code error} and {@code response.failed}
 * events, Ollama's {@code {"error": "..."}}.
 */
final class ErrorEnvelope {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private ErrorEnvelope() {
    }

    /**
     * What an error event inside a 200 stream means for its attempt.
     * @param errorType the event's type, or {@code null} when the stream had none
     * @return the attempt's outcome
     */
    static Outcome outcomeOf(@Nullable String errorType) {
        if (errorType == null) {
            return Outcome.SUCCESS;
        }
        if (errorType.startsWith("rate_limit")) {
            return Outcome.RATE_LIMITED;
        }
        if (errorType.startsWith("overloaded") || errorType.equals("server_is_overloaded")) {
            return Outcome.OVERLOADED;
        }
        return Outcome.SERVER_ERROR;
    }

    /**
     * The error type of a {@code data:} line that is a provider's error envelope:
     * Anthropic's {@code {"type":"error","error":{"type":"overloaded_error",...}}} or
     * OpenAI's {@code {"error":{"code":"rate_limit_exceeded",...}}}, the Responses API's
     * {@code error} event ({@code {"type":"error","code":...}}, or with an {@code error}
     * object) and its {@code response.failed} event (the code in {@code response.error}).
     * A delta whose text is {@code "error"} is not one, nor is a response whose
     * {@code error} is {@code null}.
     * @return the type, {@code "error"} when the envelope names none, or {@code null}
     * when the line is no error envelope
     */
    static @Nullable String typeOf(byte[] line, int offset, int size) {
        try (JsonParser parser = JSON.createParser(line, offset, size)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            boolean errorType = false;
            String details = null;
            String code = null;
            while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if ("type".equals(field) && value == JsonToken.VALUE_STRING) {
                    String type = parser.getString();
                    errorType = "error".equals(type) || "response.failed".equals(type);
                }
                else if ("code".equals(field) && value == JsonToken.VALUE_STRING) {
                    code = parser.getString();
                }
                else if ("response".equals(field) && value == JsonToken.START_OBJECT) {
                    details = errorInside(parser);
                }
                else if ("error".equals(field) && value == JsonToken.START_OBJECT) {
                    details = describe(parser);
                }
                else if ("error".equals(field) && value == JsonToken.VALUE_STRING) {
                    details = parser.getString();
                }
                else {
                    parser.skipChildren();
                }
            }
            if (details == null && !errorType) {
                return null;
            }
            String text = (details != null) ? details : "";
            return errorType((errorType && code != null) ? text + code : text);
        }
        catch (JacksonException ex) {
            return null;
        }
    }

    /**
     * The type and code of the {@code error} object of the response the parser is at the
     * start of, which it reads to its end; {@code null} when its error is {@code null}.
     */
    private static @Nullable String errorInside(JsonParser parser) {
        String details = null;
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            JsonToken value = parser.nextToken();
            if ("error".equals(field) && value == JsonToken.START_OBJECT) {
                details = describe(parser);
            }
            else {
                parser.skipChildren();
            }
        }
        return details;
    }

    /** The type and code of an error object the parser is at the start of. */
    private static String describe(JsonParser parser) {
        StringBuilder text = new StringBuilder();
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            JsonToken value = parser.nextToken();
            if (("type".equals(field) || "code".equals(field)) && value == JsonToken.VALUE_STRING) {
                text.append(parser.getString()).append(' ');
            }
            else {
                parser.skipChildren();
            }
        }
        return text.toString();
    }

    private static String errorType(String text) {
        for (String type : new String[] { "overloaded_error", "server_is_overloaded", "rate_limit_error",
                "rate_limit_exceeded", "api_error" }) {
            if (text.contains(type)) {
                return type;
            }
        }
        return "error";
    }

}
