package io.github.llmthrottle.test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.test.RateLimiter.Dimension;
import io.github.llmthrottle.test.RateLimiter.Level;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OpenAI Chat Completions API ({@code POST /v1/chat/completions}): its rate limits,
 * headers and error bodies, which {@link OpenAiResponsesDialect} shares.
 */
class OpenAiDialect extends Dialect {

    private static final String VISIT = " Visit https://platform.openai.com/account/rate-limits to learn more.";

    @Override
    String requestIdHeader() {
        return "x-request-id";
    }

    @Override
    String newRequestId() {
        return randomId("req_", 32);
    }

    @Override
    String newMessageId() {
        return randomId("chatcmpl-", 29);
    }

    @Override
    SimRequest parse(JsonNode body, String apiKey) throws InvalidRequest {
        String model = string(body, "model");
        if (model == null) {
            throw new InvalidRequest("you must provide a model parameter", null, null);
        }
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray()) {
            throw new InvalidRequest("Missing required parameter: 'messages'.", "messages",
                    "missing_required_parameter");
        }
        int maxTokens = positiveInt(body, "max_completion_tokens", false, this);
        if (maxTokens == 0) {
            maxTokens = positiveInt(body, "max_tokens", false, this);
        }
        JsonNode options = body.get("stream_options");
        boolean includeUsage = options != null && bool(options, "include_usage");
        long chars = messagesChars(messages) + toolsChars(body);
        return new SimRequest(this, model, apiKey, TokenEstimate.ofChars(chars), maxTokens, bool(body, "stream"),
                includeUsage);
    }

    @Override
    long[] demand(SimRequest request) {
        return new long[] { 1, 0, 0, (long) request.inputTokens() + request.maxTokens() };
    }

    @Override
    void settle(RateLimiter limiter, RateLimiter.Key key, SimRequest request, int outputTokens) {
        if (request.maxTokens() > 0) {
            limiter.refund(key, Dimension.TOKENS, request.maxTokens() - outputTokens);
        }
        else {
            limiter.charge(key, Dimension.TOKENS, outputTokens);
        }
    }

    @Override
    Map<String, String> rateLimitHeaders(Map<Dimension, Level> levels, Instant now, boolean round) {
        Map<String, String> headers = new LinkedHashMap<>();
        Level requests = levels.get(Dimension.REQUESTS);
        Level tokens = levels.get(Dimension.TOKENS);
        if (requests != null) {
            headers.put("x-ratelimit-limit-requests", Long.toString(requests.limit()));
        }
        if (tokens != null) {
            headers.put("x-ratelimit-limit-tokens", Long.toString(tokens.limit()));
        }
        if (requests != null) {
            headers.put("x-ratelimit-remaining-requests", Long.toString(Math.max(0, requests.available())));
        }
        if (tokens != null) {
            headers.put("x-ratelimit-remaining-tokens", Long.toString(Math.max(0, tokens.available())));
        }
        if (requests != null) {
            headers.put("x-ratelimit-reset-requests", GoDuration.formatMillis(requests.nanosToFull()));
        }
        if (tokens != null) {
            headers.put("x-ratelimit-reset-tokens", GoDuration.formatMillis(tokens.nanosToFull()));
        }
        return headers;
    }

    @Override
    String errorBody(ErrorSpec error, String requestId) {
        ObjectNode root = object();
        ObjectNode inner = root.putObject("error");
        inner.put("message", error.message());
        inner.put("type", error.type());
        if (error.param() != null) {
            inner.put("param", error.param());
        }
        else {
            inner.putNull("param");
        }
        if (error.code() != null) {
            inner.put("code", error.code());
        }
        else {
            inner.putNull("code");
        }
        return json(root);
    }

    @Override
    ErrorSpec error(int status) {
        return switch (status) {
            case 400 -> new ErrorSpec(400, "invalid_request_error", null, "Invalid request.");
            case 401 -> new ErrorSpec(401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.");
            case 403 -> new ErrorSpec(403, "invalid_request_error", "unsupported_country_region_territory",
                    "Country, region, or territory not supported");
            case 404 -> new ErrorSpec(404, "invalid_request_error", "model_not_found",
                    "The model does not exist or you do not have access to it.");
            case 429 -> new ErrorSpec(429, "requests", "rate_limit_exceeded", "Rate limit reached for requests");
            case 500 -> new ErrorSpec(500, "server_error", null,
                    "The server had an error while processing your request. Sorry about that!");
            case 503 -> new ErrorSpec(503, "service_unavailable_error", "server_is_overloaded",
                    "The server is overloaded or not ready yet.");
            default -> (status < 500) ? new ErrorSpec(status, "invalid_request_error", null, "Invalid request.")
                    : new ErrorSpec(status, "server_error", null,
                            "The server had an error while processing your request.");
        };
    }

    @Override
    ErrorSpec overloaded() {
        return error(503);
    }

    @Override
    ErrorSpec quotaExceeded(Instant now) {
        return new ErrorSpec(429, "insufficient_quota", "insufficient_quota",
                "You exceeded your current quota, please check your plan and billing details. For more information on "
                        + "this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.");
    }

    @Override
    ErrorSpec rateLimited(RateLimiter.Rejection rejection, String model) {
        boolean requests = rejection.dimension() == Dimension.REQUESTS;
        String what = requests ? "requests per min (RPM)" : "tokens per min (TPM)";
        String type = requests ? "requests" : "tokens";
        if (rejection.neverFits()) {
            return new ErrorSpec(429, type, "rate_limit_exceeded",
                    "Request too large for " + model + " in organization org-simulated on " + what + ": Limit "
                            + rejection.limit() + ", Requested " + rejection.requested()
                            + ". The input or output tokens must be reduced in order to run successfully." + VISIT);
        }
        long used = rejection.limit() - Math.max(0, rejection.available());
        long waitNanos = (rejection.nanosToWait() + 999_999L) / 1_000_000L * 1_000_000L;
        return new ErrorSpec(429, type, "rate_limit_exceeded",
                "Rate limit reached for " + model + " in organization org-simulated on " + what + ": Limit "
                        + rejection.limit() + ", Used " + used + ", Requested " + rejection.requested()
                        + ". Please try again in " + GoDuration.format(waitNanos) + "." + VISIT);
    }

    @Override
    ErrorSpec unauthorized(boolean missing) {
        return missing ? new ErrorSpec(401, "invalid_request_error", null,
                "You didn't provide an API key. You need to provide your API key in an Authorization header using "
                        + "Bearer auth (i.e. Authorization: Bearer YOUR_KEY).")
                : error(401);
    }

    @Override
    ErrorSpec invalid(InvalidRequest invalid) {
        return new ErrorSpec(400, "invalid_request_error", invalid.code(), invalid.getMessage(), invalid.param());
    }

    @Override
    ErrorSpec unparseable() {
        return new ErrorSpec(400, "invalid_request_error", null,
                "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your "
                        + "HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not "
                        + "valid JSON.)");
    }

    @Override
    ErrorSpec concurrencyExceeded(int status, int limit) {
        return (status == 429) ? new ErrorSpec(429, "requests", "rate_limit_exceeded",
                "Too many concurrent requests (limit " + limit + "). Please try again later.") : error(status);
    }

    @Override
    String completion(SimRequest request, String id, Instant now, String text, int outputTokens, boolean maxed) {
        ObjectNode root = object();
        root.put("id", id);
        root.put("object", "chat.completion");
        root.put("created", now.getEpochSecond());
        root.put("model", request.model());
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        message.put("content", text);
        message.putNull("refusal");
        choice.putNull("logprobs");
        choice.put("finish_reason", maxed ? "length" : "stop");
        usage(root.putObject("usage"), request.inputTokens(), outputTokens);
        root.putNull("system_fingerprint");
        return json(root);
    }

    private static void usage(ObjectNode usage, int prompt, int completion) {
        usage.put("prompt_tokens", prompt);
        usage.put("completion_tokens", completion);
        usage.put("total_tokens", prompt + completion);
        usage.putObject("prompt_tokens_details").put("cached_tokens", 0);
        usage.putObject("completion_tokens_details").put("reasoning_tokens", 0);
    }

    private static ObjectNode chunk(SimRequest request, String id, Instant now) {
        ObjectNode root = object();
        root.put("id", id);
        root.put("object", "chat.completion.chunk");
        root.put("created", now.getEpochSecond());
        root.put("model", request.model());
        root.putNull("system_fingerprint");
        return root;
    }

    private static String data(SimRequest request, ObjectNode chunk) {
        if (request.includeUsage() && !chunk.has("usage")) {
            chunk.putNull("usage");
        }
        return "data: " + json(chunk) + "\n\n";
    }

    @Override
    List<String> streamStart(SimRequest request, String id, Instant now) {
        ObjectNode chunk = chunk(request, id, now);
        ObjectNode choice = chunk.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode delta = choice.putObject("delta");
        delta.put("role", "assistant");
        delta.put("content", "");
        delta.putNull("refusal");
        choice.putNull("logprobs");
        choice.putNull("finish_reason");
        return List.of(data(request, chunk));
    }

    @Override
    String streamDelta(SimRequest request, String id, Instant now, String text, boolean first) {
        ObjectNode chunk = chunk(request, id, now);
        ObjectNode choice = chunk.putArray("choices").addObject();
        choice.put("index", 0);
        choice.putObject("delta").put("content", text);
        choice.putNull("logprobs");
        choice.putNull("finish_reason");
        return data(request, chunk);
    }

    @Override
    List<String> streamEnd(SimRequest request, String id, Instant now, int outputTokens, boolean maxed) {
        List<String> events = new ArrayList<>();
        ObjectNode last = chunk(request, id, now);
        ObjectNode choice = last.putArray("choices").addObject();
        choice.put("index", 0);
        choice.putObject("delta");
        choice.putNull("logprobs");
        choice.put("finish_reason", maxed ? "length" : "stop");
        events.add(data(request, last));
        if (request.includeUsage()) {
            ObjectNode usageChunk = chunk(request, id, now);
            usageChunk.putArray("choices");
            usage(usageChunk.putObject("usage"), request.inputTokens(), outputTokens);
            events.add(data(request, usageChunk));
        }
        events.add("data: [DONE]\n\n");
        return events;
    }

    @Override
    String streamError(@Nullable String errorType) {
        if (errorType != null) {
            return "data: {\"error\":{\"message\":\"Error: " + errorType + "\",\"type\":\"" + errorType
                    + "\",\"param\":null,\"code\":\"" + errorType + "\"}}\n\n";
        }
        return "data: {\"error\":{\"message\":\"The server is overloaded or not ready yet.\",\"type\":\"server_error\","
                + "\"param\":null,\"code\":\"server_is_overloaded\"}}\n\n";
    }

}
