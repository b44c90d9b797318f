package io.github.llmthrottle.test;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import static io.github.llmthrottle.test.SimClient.JSON;
import static io.github.llmthrottle.test.SimClient.chat;
import static io.github.llmthrottle.test.SimClient.events;
import static io.github.llmthrottle.test.SimClient.header;
import static io.github.llmthrottle.test.SimClient.json;
import static io.github.llmthrottle.test.SimClient.openAi;
import static io.github.llmthrottle.test.SimClient.post;
import static io.github.llmthrottle.test.SimClient.textOf;
import static org.assertj.core.api.Assertions.assertThat;

class LlmSimulatorResponsesTests {

    private static final String GPT = "gpt-5";

    @RegisterExtension
    static final LlmSimulatorExtension extension = LlmSimulatorExtension.of(LlmSimulator.builder()
        .clock(ManualClock.at("2023-09-29T16:26:37Z"))
        .noLatency()
        .model(GPT, ModelLimits.openAi(50, 10_000))
        .roundRemainingTokens(false));

    private final LlmSimulator simulator = extension.simulator();

    @Test
    void plainResponseHasTheResponseObjectUsageAndRateLimitHeaders() {
        HttpResponse<String> response = responses(request(500, false, textOf(20)));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(header(response, "x-request-id")).startsWith("req_");
        assertThat(header(response, "x-ratelimit-limit-tokens")).isEqualTo("10000");
        JsonNode body = json(response);
        assertThat(body.get("id").stringValue()).startsWith("resp_");
        assertThat(body.get("object").stringValue()).isEqualTo("response");
        assertThat(body.get("status").stringValue()).isEqualTo("completed");
        assertThat(body.at("/output/0/type").stringValue()).isEqualTo("message");
        assertThat(body.at("/output/0/content/0/type").stringValue()).isEqualTo("output_text");
        assertThat(body.at("/output/0/content/0/text").stringValue()).hasSize(400);
        // "Be brief." (9) + 80 characters of input: 23 tokens
        assertThat(body.at("/usage/input_tokens").intValue()).isEqualTo(23);
        assertThat(body.at("/usage/output_tokens").intValue()).isEqualTo(100);
        assertThat(body.at("/usage/total_tokens").intValue()).isEqualTo(123);
        assertThat(this.simulator.levels("", GPT).tokens()).as("refunded to the actual output").isEqualTo(10_000 - 123);
    }

    @Test
    void responsesAndChatCompletionsTakeFromTheSameBuckets() {
        assertThat(responses(request(500, false, textOf(20))).statusCode()).isEqualTo(200);
        assertThat(openAi(this.simulator, chat(GPT, 500, textOf(20))).statusCode()).isEqualTo(200);
        assertThat(this.simulator.levels("", GPT).tokens()).isEqualTo(10_000 - 123 - 120);
        assertThat(this.simulator.levels("", GPT).requests()).isEqualTo(48);
    }

    @Test
    void streamFollowsTheResponsesEventSequenceAndEndsWithUsage() {
        HttpResponse<String> response = responses(request(500, true, textOf(20)));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(header(response, "content-type")).startsWith("text/event-stream");
        assertThat(header(response, "x-ratelimit-remaining-tokens")).as("max_output_tokens reserved at admission")
            .isEqualTo(Integer.toString(10_000 - 23 - 500));
        assertThat(response.body()).startsWith("event: response.created\ndata: {\"type\":\"response.created\",");
        List<String[]> events = events(response.body());
        List<String> names = events.stream().map((e) -> e[0]).toList();
        assertThat(names.subList(0, 4)).containsExactly("response.created", "response.in_progress",
                "response.output_item.added", "response.content_part.added");
        assertThat(names.subList(4, names.size() - 4)).containsOnly("response.output_text.delta").hasSize(25);
        assertThat(names.subList(names.size() - 4, names.size())).containsExactly("response.output_text.done",
                "response.content_part.done", "response.output_item.done", "response.completed");
        for (int i = 0; i < events.size(); i++) {
            JsonNode data = JSON.readTree(events.get(i)[1]);
            assertThat(data.get("type").stringValue()).isEqualTo(events.get(i)[0]);
            assertThat(data.get("sequence_number").intValue()).isEqualTo(i);
        }
        assertThat(JSON.readTree(events.get(0)[1]).at("/response/usage").isNull()).isTrue();
        StringBuilder text = new StringBuilder();
        events.subList(4, 29).forEach((e) -> text.append(JSON.readTree(e[1]).get("delta").stringValue()));
        JsonNode completed = JSON.readTree(events.get(events.size() - 1)[1]).get("response");
        assertThat(completed.at("/output/0/content/0/text").stringValue()).isEqualTo(text.toString()).hasSize(400);
        assertThat(completed.at("/usage/input_tokens").intValue()).isEqualTo(23);
        assertThat(completed.at("/usage/output_tokens").intValue()).isEqualTo(100);
        assertThat(this.simulator.levels("", GPT).tokens()).isEqualTo(10_000 - 123);
    }

    @Test
    void streamCutShortByMaxOutputTokensEndsIncomplete() {
        List<String[]> events = events(responses(request(40, true, "hi")).body());
        JsonNode last = JSON.readTree(events.get(events.size() - 1)[1]);
        assertThat(last.get("type").stringValue()).isEqualTo("response.incomplete");
        assertThat(last.at("/response/incomplete_details/reason").stringValue()).isEqualTo("max_output_tokens");
        assertThat(last.at("/response/usage/output_tokens").intValue()).isEqualTo(40);
    }

    @Test
    void streamErrorFaultSendsAResponseFailedEvent() {
        this.simulator.script(GPT, Fault.streamError(2).errorCode("rate_limit_exceeded"));
        List<String[]> events = events(responses(request(500, true, "hi")).body());
        assertThat(events.stream().map((e) -> e[0]).toList()).containsExactly("response.created",
                "response.in_progress", "response.output_item.added", "response.content_part.added",
                "response.output_text.delta", "response.output_text.delta", "response.failed");
        JsonNode failed = JSON.readTree(events.get(6)[1]);
        assertThat(failed.get("sequence_number").intValue()).isEqualTo(6);
        assertThat(failed.at("/response/status").stringValue()).isEqualTo("failed");
        assertThat(failed.at("/response/error/code").stringValue()).isEqualTo("rate_limit_exceeded");
        assertThat(this.simulator.stats().streamErrors()).isEqualTo(1);
        this.simulator.script(GPT, Fault.streamError(0));
        events = events(responses(request(500, true, "hi")).body());
        assertThat(JSON.readTree(events.get(events.size() - 1)[1]).at("/response/error/code").stringValue())
            .isEqualTo("server_error");
    }

    @Test
    void rateLimitsAndFaultsAreAnsweredWithAStatusBeforeAnyEvent() {
        this.simulator.script(GPT, Fault.status(429).retryAfter("2"), Fault.streamError(1));
        HttpResponse<String> limited = responses(request(500, true, "hi"));
        assertThat(limited.statusCode()).isEqualTo(429);
        assertThat(header(limited, "retry-after")).isEqualTo("2");
        assertThat(json(limited).at("/error/code").stringValue()).isEqualTo("rate_limit_exceeded");
        HttpResponse<String> overloaded = responses(request(500, false, "hi"));
        assertThat(overloaded.statusCode()).as("without streaming a stream error is a 503").isEqualTo(503);
        assertThat(json(overloaded).at("/error/code").stringValue()).isEqualTo("server_is_overloaded");
        HttpResponse<String> tooLarge = responses(request(20_000, false, "hi"));
        assertThat(tooLarge.statusCode()).isEqualTo(429);
        assertThat(header(tooLarge, "retry-after")).isNull();
    }

    @Test
    void inputItemsAndToolsAreEstimatedAndBadRequestsRefused() {
        ObjectNode root = JSON.createObjectNode();
        root.put("model", GPT);
        ObjectNode item = root.putArray("input").addObject();
        item.put("role", "user");
        item.putArray("content").addObject().put("type", "input_text").put("text", textOf(10));
        root.putArray("tools").addObject().put("type", "function").put("name", "f");
        JsonNode body = json(responses(JSON.writeValueAsString(root)));
        // 40 characters of text + [{"type":"function","name":"f"}] (32): 18 tokens
        assertThat(body.at("/usage/input_tokens").intValue()).isEqualTo(18);
        assertThat(responses("{\"input\":\"hi\"}").statusCode()).isEqualTo(400);
        HttpResponse<String> small = responses("{\"model\":\"gpt-5\",\"input\":\"hi\",\"max_output_tokens\":8}");
        assertThat(small.statusCode()).isEqualTo(400);
        assertThat(json(small).at("/error/code").stringValue()).isEqualTo("integer_below_min_value");
        assertThat(post(this.simulator, "/responses", request(500, false, "hi")).statusCode()).isEqualTo(200);
    }

    private HttpResponse<String> responses(String body) {
        return post(this.simulator, "/v1/responses", body);
    }

    private static String request(int maxOutputTokens, boolean stream, String input) {
        ObjectNode root = JSON.createObjectNode();
        root.put("model", GPT);
        root.put("instructions", "Be brief.");
        root.put("input", input);
        root.put("max_output_tokens", maxOutputTokens);
        if (stream) {
            root.put("stream", true);
        }
        return JSON.writeValueAsString(root);
    }

}
