package io.github.llmthrottle.test;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OpenAI Responses API ({@code POST /v1/responses}): the same API keys, rate limits,
 * headers and error bodies as {@link OpenAiDialect}'s Chat Completions (a call to either
 * takes from the same buckets), with the Responses request ({@code instructions},
 * {@code input} as a string or items, {@code max_output_tokens}), response object and
 * stream. A stream is {@code event: NAME} and {@code data: JSON} per event:
 * {@code response.created}, {@code response.in_progress},
 * {@code response.output_item.added}, {@code response.content_part.added},
 * {@code response.output_text.delta}..., {@code response.output_text.done},
 * {@code response.content_part.done}, {@code response.output_item.done}, then
 * {@code response.completed} (or {@code response.incomplete} when
 * {@code max_output_tokens} cut the answer short) with the usage; every event carries its
 * {@code sequence_number}. A failure inside the stream is a {@code response.failed} event
 * whose {@code response.error.code} is the fault's code.
 */
final class OpenAiResponsesDialect extends OpenAiDialect {

    /** The events {@link #streamStart} sends, before the first delta. */
    private static final int START_EVENTS = 4;

    /** The least {@code max_output_tokens} the API accepts. */
    private static final int MIN_OUTPUT_TOKENS = 16;

    @Override
    String newMessageId() {
        return randomId("resp_", 48);
    }

    @Override
    SimRequest parse(JsonNode body, String apiKey) throws InvalidRequest {
        String model = string(body, "model");
        if (model == null) {
            throw new InvalidRequest("Missing required parameter: 'model'.", "model", "missing_required_parameter");
        }
        JsonNode input = body.get("input");
        if (input != null && !input.isNull() && !input.isString() && !input.isArray()) {
            throw new InvalidRequest("Invalid type for 'input': expected one of a string or array of input items.",
                    "input", "invalid_type");
        }
        JsonNode instructions = body.get("instructions");
        if (instructions != null && !instructions.isNull() && !instructions.isString()) {
            throw new InvalidRequest("Invalid type for 'instructions': expected a string.", "instructions",
                    "invalid_type");
        }
        int maxTokens = positiveInt(body, "max_output_tokens", false, this);
        if (maxTokens > 0 && maxTokens < MIN_OUTPUT_TOKENS) {
            throw new InvalidRequest("Invalid 'max_output_tokens': integer below minimum value. Expected a value >= "
                    + MIN_OUTPUT_TOKENS + ", but got " + maxTokens + " instead.", "max_output_tokens",
                    "integer_below_min_value");
        }
        long chars = ((instructions != null) ? contentChars(instructions) : 0)
                + ((input != null) ? contentChars(input) : 0) + toolsChars(body);
        return new SimRequest(this, model, apiKey, TokenEstimate.ofChars(chars), maxTokens, bool(body, "stream"), true);
    }

    @Override
    String completion(SimRequest request, String id, Instant now, String text, int outputTokens, boolean maxed) {
        return json(response(request, id, now, maxed ? "incomplete" : "completed", text, outputTokens));
    }

    @Override
    List<String> streamStart(SimRequest request, String id, Instant now) {
        ObjectNode created = event("response.created", 0);
        created.set("response", response(request, id, now, "in_progress", null, 0));
        ObjectNode inProgress = event("response.in_progress", 1);
        inProgress.set("response", response(request, id, now, "in_progress", null, 0));
        ObjectNode itemAdded = event("response.output_item.added", 2);
        itemAdded.put("output_index", 0);
        itemAdded.set("item", message(id, "in_progress", null));
        ObjectNode partAdded = part(event("response.content_part.added", 3), id);
        partAdded.set("part", outputText(""));
        return List.of(sse(created), sse(inProgress), sse(itemAdded), sse(partAdded));
    }

    @Override
    String streamDelta(SimRequest request, String id, Instant now, String text, int index) {
        ObjectNode delta = part(event("response.output_text.delta", START_EVENTS + index), id);
        delta.put("delta", text);
        delta.putArray("logprobs");
        return sse(delta);
    }

    @Override
    List<String> streamEnd(SimRequest request, String id, Instant now, int outputTokens, boolean maxed, int deltas) {
        int sequence = START_EVENTS + deltas;
        String text = text(0, outputTokens);
        ObjectNode textDone = part(event("response.output_text.done", sequence), id);
        textDone.put("text", text);
        textDone.putArray("logprobs");
        ObjectNode partDone = part(event("response.content_part.done", sequence + 1), id);
        partDone.set("part", outputText(text));
        ObjectNode itemDone = event("response.output_item.done", sequence + 2);
        itemDone.put("output_index", 0);
        itemDone.set("item", message(id, "completed", text));
        ObjectNode completed = event(maxed ? "response.incomplete" : "response.completed", sequence + 3);
        completed.set("response", response(request, id, now, maxed ? "incomplete" : "completed", text, outputTokens));
        return List.of(sse(textDone), sse(partDone), sse(itemDone), sse(completed));
    }

    @Override
    String streamError(SimRequest request, String id, Instant now, int deltas, Fault fault) {
        String code = (fault.errorCode() != null) ? fault.errorCode()
                : (fault.errorType() != null) ? fault.errorType() : "server_error";
        String message = (fault.message() != null) ? fault.message() : switch (code) {
            case "rate_limit_exceeded" ->
                "Rate limit reached for " + request.model() + " in organization org-simulated. Please try again later.";
            case "server_is_overloaded" -> "The server is overloaded or not ready yet.";
            default -> "The server had an error while processing your request. Sorry about that!";
        };
        ObjectNode response = response(request, id, now, "failed", null, 0);
        ObjectNode error = response.putObject("error");
        error.put("code", code);
        error.put("message", message);
        ObjectNode failed = event("response.failed", START_EVENTS + deltas);
        failed.set("response", response);
        return sse(failed);
    }

    /**
     * A response object: {@code text} is its output ({@code null}: none yet), its usage
     * is there once it is no longer in progress.
     */
    private static ObjectNode response(SimRequest request, String id, Instant now, String status, @Nullable String text,
            int outputTokens) {
        ObjectNode response = object();
        response.put("id", id);
        response.put("object", "response");
        response.put("created_at", now.getEpochSecond());
        response.put("status", status);
        response.putNull("error");
        if ("incomplete".equals(status)) {
            response.putObject("incomplete_details").put("reason", "max_output_tokens");
        }
        else {
            response.putNull("incomplete_details");
        }
        response.putNull("instructions");
        if (request.maxTokens() > 0) {
            response.put("max_output_tokens", request.maxTokens());
        }
        else {
            response.putNull("max_output_tokens");
        }
        response.put("model", request.model());
        if (text != null) {
            response.putArray("output").add(message(id, "completed", text));
        }
        else {
            response.putArray("output");
        }
        response.put("parallel_tool_calls", true);
        response.putNull("previous_response_id");
        response.put("store", true);
        response.put("temperature", 1.0);
        response.putObject("text").putObject("format").put("type", "text");
        response.put("tool_choice", "auto");
        response.putArray("tools");
        response.put("top_p", 1.0);
        response.put("truncation", "disabled");
        if ("in_progress".equals(status) || "failed".equals(status)) {
            response.putNull("usage");
        }
        else {
            ObjectNode usage = response.putObject("usage");
            usage.put("input_tokens", request.inputTokens());
            usage.putObject("input_tokens_details").put("cached_tokens", 0);
            usage.put("output_tokens", outputTokens);
            usage.putObject("output_tokens_details").put("reasoning_tokens", 0);
            usage.put("total_tokens", request.inputTokens() + outputTokens);
        }
        response.putNull("user");
        response.putObject("metadata");
        return response;
    }

    /** The assistant's output message item; {@code text} {@code null}: no content yet. */
    private static ObjectNode message(String responseId, String status, @Nullable String text) {
        ObjectNode item = object();
        item.put("id", itemId(responseId));
        item.put("type", "message");
        item.put("status", status);
        item.put("role", "assistant");
        if (text != null) {
            item.putArray("content").add(outputText(text));
        }
        else {
            item.putArray("content");
        }
        return item;
    }

    private static ObjectNode outputText(String text) {
        ObjectNode part = object();
        part.put("type", "output_text");
        part.putArray("annotations");
        part.putArray("logprobs");
        part.put("text", text);
        return part;
    }

    private static ObjectNode event(String type, int sequence) {
        ObjectNode event = object();
        event.put("type", type);
        event.put("sequence_number", sequence);
        return event;
    }

    /** Adds where an event about the output text is: the message item, its first part. */
    private static ObjectNode part(ObjectNode event, String responseId) {
        event.put("item_id", itemId(responseId));
        event.put("output_index", 0);
        event.put("content_index", 0);
        return event;
    }

    /** The message item's id, derived from its response's so it needs no state. */
    private static String itemId(String responseId) {
        return "msg_" + responseId.substring("resp_".length());
    }

    /** An event as the API sends it: its name, then its data. */
    private static String sse(ObjectNode event) {
        return "event: " + event.get("type").stringValue() + "\ndata: " + json(event) + "\n\n";
    }

}
