package io.github.llmthrottle.test;

import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import static io.github.llmthrottle.test.SimClient.JSON;
import static io.github.llmthrottle.test.SimClient.chat;
import static io.github.llmthrottle.test.SimClient.header;
import static io.github.llmthrottle.test.SimClient.json;
import static io.github.llmthrottle.test.SimClient.openAi;
import static io.github.llmthrottle.test.SimClient.post;
import static io.github.llmthrottle.test.SimClient.textOf;
import static org.assertj.core.api.Assertions.assertThat;

class LlmSimulatorOllamaTests {

    private static final String LLAMA = "llama3.2";

    @RegisterExtension
    static final LlmSimulatorExtension extension = LlmSimulatorExtension.of(LlmSimulator.builder()
        .clock(ManualClock.at("2023-09-29T16:26:37Z"))
        .noLatency()
        .model(LLAMA, ModelLimits.openAi(50, 10_000))
        .roundRemainingTokens(false));

    private final LlmSimulator simulator = extension.simulator();

    @Test
    void aChatThatDoesNotStreamIsAnsweredWithItsCountsAndNoRateLimitHeaders() {
        HttpResponse<String> response = ollama(request(500, false, textOf(20)));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(header(response, "content-type")).startsWith("application/json");
        assertThat(response.headers().map().keySet()).noneMatch((name) -> name.toLowerCase().contains("ratelimit"));
        JsonNode body = json(response);
        assertThat(body.get("model").stringValue()).isEqualTo(LLAMA);
        assertThat(body.at("/message/role").stringValue()).isEqualTo("assistant");
        assertThat(body.at("/message/content").stringValue()).hasSize(400);
        assertThat(body.get("done").booleanValue()).isTrue();
        assertThat(body.get("done_reason").stringValue()).isEqualTo("stop");
        // "Be brief." (9) + 80 characters: 23 tokens
        assertThat(body.get("prompt_eval_count").intValue()).isEqualTo(23);
        assertThat(body.get("eval_count").intValue()).isEqualTo(100);
        assertThat(this.simulator.levels("", LLAMA).tokens()).as("refunded to the actual output")
            .isEqualTo(10_000 - 123);
    }

    @Test
    void aChatStreamsNdjsonWhenStreamIsTrueOrAbsentAndEndsWithItsCounts() {
        ObjectNode absent = (ObjectNode) JSON.readTree(request(500, true, textOf(20)));
        absent.remove("stream");
        for (String body : List.of(request(500, true, textOf(20)), JSON.writeValueAsString(absent))) {
            HttpResponse<String> response = ollama(body);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(header(response, "content-type")).isEqualTo("application/x-ndjson");
            assertThat(response.body()).endsWith("\n");
            List<JsonNode> lines = Arrays.stream(response.body().split("\n")).map(JSON::readTree).toList();
            assertThat(lines).hasSize(26);
            assertThat(lines.subList(0, 25)).allSatisfy((line) -> {
                assertThat(line.get("done").booleanValue()).isFalse();
                assertThat(line.has("eval_count")).isFalse();
            });
            StringBuilder text = new StringBuilder();
            lines.forEach((line) -> text.append(line.at("/message/content").stringValue()));
            assertThat(text).hasSize(400);
            JsonNode last = lines.get(25);
            assertThat(last.get("done").booleanValue()).isTrue();
            assertThat(last.get("prompt_eval_count").intValue()).isEqualTo(23);
            assertThat(last.get("eval_count").intValue()).isEqualTo(100);
        }
        assertThat(this.simulator.levels("", LLAMA).tokens()).isEqualTo(10_000 - 2 * 123);
    }

    @Test
    void numPredictCapsTheOutputAndIsReservedAtAdmission() {
        JsonNode body = json(ollama(request(40, false, "hi")));
        assertThat(body.get("eval_count").intValue()).isEqualTo(40);
        assertThat(body.get("done_reason").stringValue()).isEqualTo("length");
        assertThat(openAi(this.simulator, chat(LLAMA, 500, textOf(20))).statusCode()).isEqualTo(200);
        assertThat(this.simulator.levels("", LLAMA).requests()).as("the same buckets as Chat Completions")
            .isEqualTo(48);
    }

    @Test
    void rateLimitsAndFaultsAreAnsweredWithOllamasErrorBody() {
        this.simulator.script(LLAMA, Fault.status(429).retryAfter("2"), Fault.overloaded());
        HttpResponse<String> limited = ollama(request(500, true, "hi"));
        assertThat(limited.statusCode()).isEqualTo(429);
        assertThat(header(limited, "retry-after")).isEqualTo("2");
        assertThat(limited.body()).isEqualTo("{\"error\":\"too many requests\"}");
        HttpResponse<String> busy = ollama(request(500, true, "hi"));
        assertThat(busy.statusCode()).isEqualTo(503);
        assertThat(json(busy).get("error").stringValue()).startsWith("server busy");
        HttpResponse<String> tooLarge = ollama(request(20_000, false, "hi"));
        assertThat(tooLarge.statusCode()).isEqualTo(429);
        assertThat(header(tooLarge, "retry-after")).isNull();
        assertThat(json(tooLarge).get("error").stringValue()).isEqualTo("too many requests");
        SimulatorStats stats = this.simulator.stats();
        assertThat(stats.rateLimited()).isEqualTo(2);
        assertThat(stats.otherErrors()).as("a 503, as OpenAI's").isEqualTo(1);
    }

    @Test
    void aStreamErrorFaultEndsTheStreamWithAnErrorLine() {
        this.simulator.script(LLAMA, Fault.streamError(2));
        String[] lines = ollama(request(500, true, "hi")).body().split("\n");
        assertThat(lines).hasSize(3);
        assertThat(JSON.readTree(lines[2]).get("error").stringValue())
            .startsWith("an error was encountered while running the model");
        assertThat(this.simulator.stats().streamErrors()).isEqualTo(1);
    }

    @Test
    void aChatWithoutAModelIsRefused() {
        HttpResponse<String> response = ollama("{\"messages\":[]}");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).isEqualTo("{\"error\":\"model is required\"}");
    }

    private HttpResponse<String> ollama(String body) {
        return post(this.simulator, "/api/chat", body);
    }

    private static String request(int numPredict, boolean stream, String text) {
        ObjectNode root = JSON.createObjectNode();
        root.put("model", LLAMA);
        ObjectNode system = root.putArray("messages").addObject();
        system.put("role", "system");
        system.put("content", "Be brief.");
        ObjectNode user = ((ArrayNode) root.get("messages")).addObject();
        user.put("role", "user");
        user.put("content", text);
        root.put("stream", stream);
        root.putObject("options").put("num_predict", numPredict);
        return JSON.writeValueAsString(root);
    }

}
