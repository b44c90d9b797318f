package io.github.llmthrottle.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static io.github.llmthrottle.test.SimClient.anthropic;
import static io.github.llmthrottle.test.SimClient.events;
import static io.github.llmthrottle.test.SimClient.header;
import static io.github.llmthrottle.test.SimClient.openAi;
import static io.github.llmthrottle.test.SimClient.streamingChat;
import static io.github.llmthrottle.test.SimClient.streamingMessages;
import static io.github.llmthrottle.test.SimClient.textOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LlmSimulatorStreamingTests {

    private static final String OPUS = "claude-opus-4-7";

    private static final String GPT = "gpt-4o";

    private final LlmSimulator simulator = LlmSimulator.builder()
        .clock(ManualClock.at("2023-09-29T16:26:37Z"))
        .noLatency()
        .model(OPUS, ModelLimits.of(50, 10_000, 1_000))
        .model(GPT, ModelLimits.openAi(50, 10_000))
        .roundRemainingTokens(false)
        .start();

    @AfterEach
    void close() {
        this.simulator.close();
    }

    private static JsonNode data(String[] event) {
        return SimClient.JSON.readTree(event[1]);
    }

    @Test
    void anthropicStreamFollowsTheDocumentedEventSequence() {
        HttpResponse<String> response = anthropic(this.simulator, streamingMessages(OPUS, 500, textOf(11)));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(header(response, "content-type")).startsWith("text/event-stream");
        assertThat(header(response, "request-id")).startsWith("req_");
        assertThat(header(response, "anthropic-ratelimit-output-tokens-remaining"))
            .as("headers are sent at admission, with max_tokens reserved")
            .isEqualTo("500");
        assertThat(response.body()).startsWith("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{");
        List<String[]> events = events(response.body());
        List<String> names = events.stream().map((e) -> e[0]).toList();
        assertThat(names.subList(0, 3)).containsExactly("message_start", "content_block_start", "ping");
        assertThat(names.subList(3, 28)).containsOnly("content_block_delta").hasSize(25);
        assertThat(names.subList(28, names.size())).containsExactly("content_block_stop", "message_delta",
                "message_stop");
        JsonNode start = data(events.get(0));
        assertThat(start.at("/message/usage/input_tokens").intValue()).isEqualTo(11);
        assertThat(start.at("/message/usage/output_tokens").intValue()).isEqualTo(1);
        assertThat(start.at("/message/content").isEmpty()).isTrue();
        assertThat(start.at("/message/stop_reason").isNull()).isTrue();
        assertThat(events.get(2)[1]).isEqualTo("{\"type\": \"ping\"}");
        StringBuilder text = new StringBuilder();
        events.subList(3, 28).forEach((e) -> text.append(data(e).at("/delta/text").stringValue()));
        assertThat(text).hasSize(400);
        assertThat(data(events.get(3)).at("/delta/type").stringValue()).isEqualTo("text_delta");
        JsonNode delta = data(events.get(29));
        assertThat(delta.at("/delta/stop_reason").stringValue()).isEqualTo("end_turn");
        assertThat(delta.at("/usage/output_tokens").intValue()).isEqualTo(100);
        assertThat(events.get(30)[1]).isEqualTo("{\"type\":\"message_stop\"}");
        assertThat(this.simulator.levels("", OPUS).outputTokens()).as("refunded at the end").isEqualTo(900);
    }

    @Test
    void anthropicStreamStopsAtMaxTokens() {
        List<String[]> events = events(anthropic(this.simulator, streamingMessages(OPUS, 10, "hi")).body());
        JsonNode delta = data(events.get(events.size() - 2));
        assertThat(delta.at("/delta/stop_reason").stringValue()).isEqualTo("max_tokens");
        assertThat(delta.at("/usage/output_tokens").intValue()).isEqualTo(10);
    }

    @Test
    void openAiStreamEndsWithAUsageChunkAndDone() {
        HttpResponse<String> response = openAi(this.simulator, streamingChat(GPT, 500, textOf(20), true));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(header(response, "x-ratelimit-remaining-tokens")).isEqualTo(Integer.toString(10_000 - 520));
        List<String[]> events = events(response.body());
        assertThat(events).allSatisfy((e) -> assertThat(e[0]).isNull());
        assertThat(events.get(events.size() - 1)[1]).isEqualTo("[DONE]");
        JsonNode first = data(events.get(0));
        assertThat(first.get("object").stringValue()).isEqualTo("chat.completion.chunk");
        assertThat(first.at("/choices/0/delta/role").stringValue()).isEqualTo("assistant");
        assertThat(first.get("usage").isNull()).isTrue();
        JsonNode usage = data(events.get(events.size() - 2));
        assertThat(usage.get("choices").isEmpty()).isTrue();
        assertThat(usage.at("/usage/prompt_tokens").intValue()).isEqualTo(20);
        assertThat(usage.at("/usage/completion_tokens").intValue()).isEqualTo(100);
        assertThat(usage.at("/usage/total_tokens").intValue()).isEqualTo(120);
        JsonNode last = data(events.get(events.size() - 3));
        assertThat(last.at("/choices/0/finish_reason").stringValue()).isEqualTo("stop");
        StringBuilder text = new StringBuilder();
        events.subList(1, events.size() - 3)
            .forEach((e) -> text.append(data(e).at("/choices/0/delta/content").stringValue()));
        assertThat(text).hasSize(400);
        assertThat(this.simulator.levels("", GPT).tokens()).isEqualTo(10_000 - 120);
    }

    @Test
    void openAiStreamWithoutIncludeUsageHasNoUsage() {
        List<String[]> events = events(openAi(this.simulator, streamingChat(GPT, 500, "hi", false)).body());
        assertThat(events.get(events.size() - 1)[1]).isEqualTo("[DONE]");
        assertThat(events.subList(0, events.size() - 1)).allSatisfy((e) -> assertThat(data(e).has("usage")).isFalse());
    }

    @Test
    void streamErrorFaultSendsAnOverloadedEventAfterSomeDeltas() {
        this.simulator.script(OPUS, Fault.streamError(3));
        HttpResponse<String> response = anthropic(this.simulator, streamingMessages(OPUS, 500, "hi"));
        assertThat(response.statusCode()).isEqualTo(200);
        List<String[]> events = events(response.body());
        assertThat(events.stream().map((e) -> e[0]).toList()).containsExactly("message_start", "content_block_start",
                "ping", "content_block_delta", "content_block_delta", "content_block_delta", "error");
        assertThat(data(events.get(6)).at("/error/type").stringValue()).isEqualTo("overloaded_error");
        assertThat(this.simulator.levels("", OPUS).outputTokens()).as("only 12 streamed tokens charged").isEqualTo(988);
        assertThat(this.simulator.stats().streamErrors()).isEqualTo(1);
        this.simulator.script(GPT, Fault.streamError(1));
        List<String[]> openAiEvents = events(openAi(this.simulator, streamingChat(GPT, 500, "hi", true)).body());
        assertThat(data(openAiEvents.get(openAiEvents.size() - 1)).at("/error/code").stringValue())
            .isEqualTo("server_is_overloaded");
        this.simulator.script(OPUS, Fault.streamError(3));
        assertThat(anthropic(this.simulator, SimClient.messages(OPUS, 500, "hi")).statusCode())
            .as("without streaming the same fault is a 529")
            .isEqualTo(529);
    }

    @Test
    void streamCutFaultBreaksTheBodyMidway() {
        this.simulator.script(OPUS, Fault.streamCut(2));
        assertThatThrownBy(() -> anthropic(this.simulator, streamingMessages(OPUS, 500, "hi")))
            .hasCauseInstanceOf(IOException.class);
        assertThat(this.simulator.stats().connectionResets()).isEqualTo(1);
        assertThat(this.simulator.levels("", OPUS).outputTokens()).isEqualTo(992);
    }

    @Test
    void streamsAreWrittenIncrementally() throws Exception {
        // 100 tokens, each slept 20 ms after the first event is written: two seconds
        this.simulator.setLatency(Duration.ZERO, Duration.ofMillis(20));
        long start = System.nanoTime();
        HttpResponse<InputStream> response = SimClient.HTTP.send(
                SimClient.request(this.simulator, "/v1/messages", streamingMessages(OPUS, 500, "hi")).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            assertThat(reader.readLine()).isEqualTo("event: message_start");
            Duration firstEvent = Duration.ofNanos(System.nanoTime() - start);
            while (reader.readLine() != null) {
                // drain
            }
            Duration whole = Duration.ofNanos(System.nanoTime() - start);
            // a buffered body would arrive whole: its first event as late as its last.
            // The
            // bound is half of what is slept after the first event, so that a loaded
            // machine reading the first event up to a second late still passes
            assertThat(whole.minus(firstEvent)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
            assertThat(whole).isGreaterThanOrEqualTo(Duration.ofMillis(1950));
        }
    }

}
