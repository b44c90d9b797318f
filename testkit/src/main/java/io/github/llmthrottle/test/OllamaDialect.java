package io.github.llmthrottle.test;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.test.RateLimiter.Dimension;
import io.github.llmthrottle.test.RateLimiter.Level;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Ollama's chat API ({@code POST /api/chat}): a whole JSON answer when the request sets
 * {@code "stream": false}, else (the default) a stream of newline-delimited JSON objects
 * ({@code application/x-ndjson}) whose last one, {@code "done": true}, carries
 * {@code prompt_eval_count} and {@code eval_count}. Errors are {@code {"error": "..."}}.
 * Ollama sends no rate-limit headers: a rejected call gets a 429 with {@code retry-after}
 * only. The limits enforced are those of {@link OpenAiDialect}: requests and the combined
 * tokens per minute, {@code options.num_predict} taking the place of {@code max_tokens}.
 * The simulator's request id goes in {@code x-request-id} (Ollama itself sends none).
 */
final class OllamaDialect extends OpenAiDialect {

    @Override
    SimRequest parse(JsonNode body, String apiKey) throws InvalidRequest {
        String model = string(body, "model");
        if (model == null) {
            throw new InvalidRequest("model is required", "model", null);
        }
        JsonNode messages = body.get("messages");
        if (messages != null && !messages.isNull() && !messages.isArray()) {
            throw new InvalidRequest("json: cannot unmarshal " + messages.getNodeType().name()
                    + " into Go struct field ChatRequest.messages of type []api.Message", "messages", null);
        }
        JsonNode options = body.get("options");
        JsonNode numPredict = (options != null) ? options.get("num_predict") : null;
        int maxTokens = (numPredict != null && numPredict.canConvertToInt()) ? Math.max(0, numPredict.intValue()) : 0;
        JsonNode stream = body.get("stream");
        long chars = ((messages != null && messages.isArray()) ? messagesChars(messages) : 0) + toolsChars(body);
        return new SimRequest(this, model, apiKey, TokenEstimate.ofChars(chars), maxTokens,
                stream == null || stream.isNull() || stream.booleanValue(), false);
    }

    @Override
    String newMessageId() {
        // Ollama's answers carry no id
        return "";
    }

    @Override
    Map<String, String> rateLimitHeaders(Map<Dimension, Level> levels, Instant now, boolean round) {
        return new LinkedHashMap<>();
    }

    @Override
    String errorBody(ErrorSpec error, String requestId) {
        ObjectNode root = object();
        root.put("error", error.message());
        return json(root);
    }

    @Override
    ErrorSpec error(int status) {
        return switch (status) {
            case 400 -> new ErrorSpec(400, "invalid_request_error", null, "invalid request");
            case 401 -> new ErrorSpec(401, "invalid_request_error", null, "unauthorized");
            case 404 -> new ErrorSpec(404, "invalid_request_error", null, "model not found, try pulling it first");
            case 429 -> new ErrorSpec(429, "requests", null, "too many requests");
            case 503 -> new ErrorSpec(503, "server_error", null,
                    "server busy, please try again.  maximum pending requests exceeded");
            default -> (status < 500) ? new ErrorSpec(status, "invalid_request_error", null, "invalid request")
                    : new ErrorSpec(status, "server_error", null, "an error was encountered while running the model");
        };
    }

    @Override
    ErrorSpec quotaExceeded(Instant now) {
        return new ErrorSpec(402, "invalid_request_error", null, "usage limit reached, upgrade for higher limits");
    }

    @Override
    ErrorSpec rateLimited(RateLimiter.Rejection rejection, String model) {
        return error(429);
    }

    @Override
    ErrorSpec unauthorized(boolean missing) {
        return error(401);
    }

    @Override
    ErrorSpec unparseable() {
        return new ErrorSpec(400, "invalid_request_error", null, "invalid character looking for beginning of value");
    }

    @Override
    ErrorSpec concurrencyExceeded(int status, int limit) {
        return error(status);
    }

    @Override
    String streamContentType() {
        return "application/x-ndjson";
    }

    @Override
    String completion(SimRequest request, String id, Instant now, String text, int outputTokens, boolean maxed) {
        ObjectNode root = answer(request, now, text);
        done(root, request, outputTokens, maxed);
        return json(root);
    }

    @Override
    List<String> streamStart(SimRequest request, String id, Instant now) {
        return List.of();
    }

    @Override
    String streamDelta(SimRequest request, String id, Instant now, String text, boolean first) {
        ObjectNode line = answer(request, now, text);
        line.put("done", false);
        return json(line) + "\n";
    }

    @Override
    List<String> streamEnd(SimRequest request, String id, Instant now, int outputTokens, boolean maxed) {
        ObjectNode last = answer(request, now, "");
        done(last, request, outputTokens, maxed);
        return List.of(json(last) + "\n");
    }

    @Override
    String streamError(@Nullable String errorType) {
        return "{\"error\":\"an error was encountered while running the model: "
                + ((errorType != null) ? errorType : "unexpected EOF") + "\"}\n";
    }

    /** An answer's or a line's model, time and message. */
    private static ObjectNode answer(SimRequest request, Instant now, String text) {
        ObjectNode root = object();
        root.put("model", request.model());
        root.put("created_at", now.toString());
        ObjectNode message = root.putObject("message");
        message.put("role", "assistant");
        message.put("content", text);
        return root;
    }

    /** What the last line (or the whole answer) adds: why it ended and its counts. */
    private static void done(ObjectNode root, SimRequest request, int outputTokens, boolean maxed) {
        root.put("done_reason", maxed ? "length" : "stop");
        root.put("done", true);
        root.put("total_duration", 0L);
        root.put("load_duration", 0L);
        root.put("prompt_eval_count", request.inputTokens());
        root.put("prompt_eval_duration", 0L);
        root.put("eval_count", outputTokens);
        root.put("eval_duration", 0L);
    }

}
