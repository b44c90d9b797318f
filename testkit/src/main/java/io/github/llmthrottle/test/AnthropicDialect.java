package io.github.llmthrottle.test;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.llmthrottle.test.RateLimiter.Dimension;
import io.github.llmthrottle.test.RateLimiter.Level;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The Anthropic Messages API ({@code POST /v1/messages}): its request and response
 * bodies, its {@code anthropic-ratelimit-*} headers and its error bodies, as Anthropic
 * documents them.
 */
final class AnthropicDialect extends Dialect {

    private static final String PREFIX = "anthropic-ratelimit-";

    @Override
    String requestIdHeader() {
        return "request-id";
    }

    @Override
    String newRequestId() {
        return randomId("req_011C", 20);
    }

    @Override
    String newMessageId() {
        return randomId("msg_01", 22);
    }

    @Override
    SimRequest parse(JsonNode body, String apiKey) throws InvalidRequest {
        String model = string(body, "model");
        if (model == null) {
            throw new InvalidRequest("model: Field required", "model", null);
        }
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray()) {
            throw new InvalidRequest("messages: Field required", "messages", null);
        }
        int maxTokens = positiveInt(body, "max_tokens", true, this);
        long chars = messagesChars(messages) + toolsChars(body);
        JsonNode system = body.get("system");
        if (system != null) {
            chars += contentChars(system);
        }
        int inputTokens = TokenEstimate.ofChars(chars);
        return new SimRequest(this, model, apiKey, inputTokens, maxTokens, bool(body, "stream"), false,
                PromptCache.plan(body, inputTokens), PromptCache.Usage.NONE);
    }

    /** Count-tokens requests need no {@code max_tokens}. */
    int countTokens(JsonNode body) throws InvalidRequest {
        if (string(body, "model") == null) {
            throw new InvalidRequest("model: Field required", "model", null);
        }
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray()) {
            throw new InvalidRequest("messages: Field required", "messages", null);
        }
        long chars = messagesChars(messages) + toolsChars(body);
        JsonNode system = body.get("system");
        if (system != null) {
            chars += contentChars(system);
        }
        return TokenEstimate.ofChars(chars);
    }

    @Override
    long[] demand(SimRequest request) {
        // Cache reads do not count against the input-token limit of current models.
        return new long[] { 1, request.countedInputTokens(), request.maxTokens(), 0 };
    }

    @Override
    void settle(RateLimiter limiter, RateLimiter.Key key, SimRequest request, int outputTokens) {
        limiter.refund(key, Dimension.OUTPUT_TOKENS, request.maxTokens() - outputTokens);
    }

    @Override
    Map<String, String> rateLimitHeaders(Map<Dimension, Level> levels, Instant now, boolean round) {
        Map<String, String> headers = new LinkedHashMap<>();
        Level requests = levels.get(Dimension.REQUESTS);
        if (requests != null) {
            put(headers, "requests", requests.limit(), Math.max(0, requests.available()),
                    resetInstant(now, requests.nanosToFull()));
        }
        Level input = levels.get(Dimension.INPUT_TOKENS);
        Level output = levels.get(Dimension.OUTPUT_TOKENS);
        if (input != null) {
            put(headers, "input-tokens", input.limit(), remaining(input.available(), round),
                    resetInstant(now, input.nanosToFull()));
        }
        if (output != null) {
            put(headers, "output-tokens", output.limit(), remaining(output.available(), round),
                    resetInstant(now, output.nanosToFull()));
        }
        if (input != null || output != null) {
            long limit = 0;
            long available = 0;
            long nanosToFull = 0;
            for (Level level : new Level[] { input, output }) {
                if (level != null) {
                    limit += level.limit();
                    available += Math.max(0, level.available());
                    nanosToFull = Math.max(nanosToFull, level.nanosToFull());
                }
            }
            put(headers, "tokens", limit, remaining(available, round), resetInstant(now, nanosToFull));
        }
        return headers;
    }

    private static void put(Map<String, String> headers, String family, long limit, long remaining, String reset) {
        headers.put(PREFIX + family + "-limit", Long.toString(limit));
        headers.put(PREFIX + family + "-remaining", Long.toString(remaining));
        headers.put(PREFIX + family + "-reset", reset);
    }

    private static long remaining(long available, boolean round) {
        long value = Math.max(0, available);
        return round ? Math.round(value / 1000.0) * 1000 : value;
    }

    @Override
    String errorBody(ErrorSpec error, String requestId) {
        ObjectNode root = object();
        root.put("type", "error");
        ObjectNode inner = root.putObject("error");
        inner.put("type", error.type());
        inner.put("message", error.message());
        if (error.code() != null) {
            inner.putObject("details").put("error_code", error.code());
        }
        root.put("request_id", requestId);
        return json(root);
    }

    @Override
    ErrorSpec error(int status) {
        return switch (status) {
            case 400 -> new ErrorSpec(400, "invalid_request_error", null, "Invalid request");
            case 401 -> new ErrorSpec(401, "authentication_error", null, "invalid x-api-key");
            case 402 -> new ErrorSpec(402, "billing_error", null,
                    "Your credit balance is too low to access the Anthropic API.");
            case 403 -> new ErrorSpec(403, "permission_error", null,
                    "Your API key does not have permission to use the specified resource.");
            case 404 -> new ErrorSpec(404, "not_found_error", null, "Not found");
            case 409 -> new ErrorSpec(409, "conflict_error", null, "Conflict");
            case 413 ->
                new ErrorSpec(413, "request_too_large", null, "Request exceeds the maximum allowed number of bytes.");
            case 429 -> new ErrorSpec(429, "rate_limit_error", null,
                    "This request would exceed the rate limit for your organization. Please try again later.");
            case 500 -> new ErrorSpec(500, "api_error", null, "Internal server error");
            case 503 -> new ErrorSpec(503, "api_error", null, "Service unavailable");
            case 504 -> new ErrorSpec(504, "timeout_error", null, "Request timed out");
            case 529 -> new ErrorSpec(529, "overloaded_error", null, "Overloaded");
            default -> (status < 500) ? new ErrorSpec(status, "invalid_request_error", null, "Invalid request")
                    : new ErrorSpec(status, "api_error", null, "Internal server error");
        };
    }

    @Override
    ErrorSpec overloaded() {
        return error(529);
    }

    @Override
    ErrorSpec quotaExceeded(Instant now) {
        LocalDate next = LocalDate.ofInstant(now, ZoneOffset.UTC).withDayOfMonth(1).plusMonths(1);
        return new ErrorSpec(429, "rate_limit_error", "enforced_spend_limit_reached",
                "You have reached your API usage limits: your organization has crossed its monthly API usage threshold, "
                        + "set based on your organization's API tier. You will regain access on " + next
                        + " at 00:00 UTC.");
    }

    @Override
    ErrorSpec rateLimited(RateLimiter.Rejection rejection, String model) {
        String unit = switch (rejection.dimension()) {
            case REQUESTS -> "requests";
            case INPUT_TOKENS -> "input tokens";
            case OUTPUT_TOKENS -> "output tokens";
            case TOKENS -> "tokens";
        };
        return new ErrorSpec(429, "rate_limit_error", null, String.format(Locale.US,
                "This request would exceed the rate limit for your organization (org-simulated) of %,d %s per minute "
                        + "for %s. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the "
                        + "response headers for current usage. Please reduce the prompt length or the maximum tokens "
                        + "requested, or try again later.",
                rejection.limit(), unit, model));
    }

    @Override
    ErrorSpec unauthorized(boolean missing) {
        return new ErrorSpec(401, "authentication_error", null,
                missing ? "x-api-key header is required" : "invalid x-api-key");
    }

    @Override
    ErrorSpec invalid(InvalidRequest invalid) {
        return new ErrorSpec(400, "invalid_request_error", null, invalid.getMessage());
    }

    @Override
    ErrorSpec unparseable() {
        return new ErrorSpec(400, "invalid_request_error", null,
                "There was an error parsing the body of your request as JSON.");
    }

    @Override
    ErrorSpec concurrencyExceeded(int status, int limit) {
        return (status == 429) ? new ErrorSpec(429, "rate_limit_error", null,
                "Number of concurrent connections has exceeded your rate limit (" + limit
                        + "). Please try again later or contact sales at https://www.anthropic.com/contact-sales to "
                        + "discuss your options for a rate limit increase.")
                : error(status);
    }

    @Override
    String completion(SimRequest request, String id, Instant now, String text, int outputTokens, boolean maxed) {
        ObjectNode root = object();
        root.put("id", id);
        root.put("type", "message");
        root.put("role", "assistant");
        root.put("model", request.model());
        ObjectNode block = root.putArray("content").addObject();
        block.put("type", "text");
        block.put("text", text);
        root.put("stop_reason", maxed ? "max_tokens" : "end_turn");
        root.putNull("stop_sequence");
        usage(root.putObject("usage"), request, outputTokens);
        return json(root);
    }

    private static void usage(ObjectNode usage, SimRequest request, int output) {
        PromptCache.Usage cache = request.cache();
        usage.put("input_tokens", request.uncachedInputTokens());
        usage.put("cache_creation_input_tokens", cache.written());
        usage.put("cache_read_input_tokens", cache.read());
        ObjectNode creation = usage.putObject("cache_creation");
        creation.put("ephemeral_5m_input_tokens", cache.written5m());
        creation.put("ephemeral_1h_input_tokens", cache.written1h());
        usage.put("output_tokens", output);
    }

    @Override
    List<String> streamStart(SimRequest request, String id, Instant now) {
        ObjectNode start = object();
        start.put("type", "message_start");
        ObjectNode message = start.putObject("message");
        message.put("id", id);
        message.put("type", "message");
        message.put("role", "assistant");
        message.putArray("content");
        message.put("model", request.model());
        message.putNull("stop_reason");
        message.putNull("stop_sequence");
        usage(message.putObject("usage"), request, 1);
        ObjectNode blockStart = object();
        blockStart.put("type", "content_block_start");
        blockStart.put("index", 0);
        ObjectNode block = blockStart.putObject("content_block");
        block.put("type", "text");
        block.put("text", "");
        return List.of(event("message_start", json(start)), event("content_block_start", json(blockStart)),
                event("ping", "{\"type\": \"ping\"}"));
    }

    @Override
    String streamDelta(SimRequest request, String id, Instant now, String text, boolean first) {
        ObjectNode delta = object();
        delta.put("type", "content_block_delta");
        delta.put("index", 0);
        ObjectNode inner = delta.putObject("delta");
        inner.put("type", "text_delta");
        inner.put("text", text);
        return event("content_block_delta", json(delta));
    }

    @Override
    List<String> streamEnd(SimRequest request, String id, Instant now, int outputTokens, boolean maxed) {
        ObjectNode stop = object();
        stop.put("type", "content_block_stop");
        stop.put("index", 0);
        ObjectNode messageDelta = object();
        messageDelta.put("type", "message_delta");
        ObjectNode delta = messageDelta.putObject("delta");
        delta.put("stop_reason", maxed ? "max_tokens" : "end_turn");
        delta.putNull("stop_sequence");
        messageDelta.putObject("usage").put("output_tokens", outputTokens);
        return List.of(event("content_block_stop", json(stop)), event("message_delta", json(messageDelta)),
                event("message_stop", "{\"type\":\"message_stop\"}"));
    }

    @Override
    String streamError(@Nullable String errorType) {
        String type = (errorType != null) ? errorType : "overloaded_error";
        String message = "overloaded_error".equals(type) ? "Overloaded" : "Error: " + type;
        return event("error",
                "{\"type\": \"error\", \"error\": {\"type\": \"" + type + "\", \"message\": \"" + message + "\"}}");
    }

    private static String event(String name, String data) {
        return "event: " + name + "\ndata: " + data + "\n\n";
    }

}
