package io.github.llmthrottle.client;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.github.llmthrottle.provider.Headers;
import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.provider.UsageReader;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StreamSettlementTests {

    private static final String ANTHROPIC_STREAM = """
            event: message_start
            data: {"type":"message_start","message":{"id":"msg_4Q","type":"message","role":"assistant","content":[],"model":"claude-3-opus-latest","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":11,"output_tokens":1}}}

            event: content_block_start
            data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

            event: ping
            data: {"type": "ping"}

            event: content_block_delta
            data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}

            event: content_block_stop
            data: {"type":"content_block_stop","index":0}

            event: message_delta
            data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":6}}

            event: message_stop
            data: {"type":"message_stop"}

            """;

    private static final String OLLAMA_STREAM = """
            {"model":"llama3.2","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"The"},"done":false}
            {"model":"llama3.2","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":" sky"},"done":false}
            {"model":"llama3.2","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":4883583458,"prompt_eval_count":26,"prompt_eval_duration":342546000,"eval_count":3,"eval_duration":4535599000}
            """;

    private final List<StreamSettlement.Outcome> outcomes = new ArrayList<>();

    @Test
    void anthropicStreamSettlesInputFromMessageStartAndCumulativeOutputFromLastDelta() throws IOException {
        StreamSettlement response = response(ANTHROPIC_STREAM);
        String body = new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(body).isEqualTo(ANTHROPIC_STREAM);
        response.close();
        assertThat(this.outcomes).singleElement().satisfies((outcome) -> {
            assertThat(outcome.usage()).isEqualTo(new Usage(11, 6));
            assertThat(outcome.errorType()).isNull();
            assertThat(outcome.complete()).isTrue();
        });
    }

    @Test
    void openAiFinalUsageChunkIsRead() throws IOException {
        String stream = """
                data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}],"usage":null}

                data: {"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}}

                data: [DONE]

                """;
        StreamSettlement response = response(stream);
        response.body().readAllBytes();
        assertThat(this.outcomes).singleElement()
            .satisfies((outcome) -> assertThat(outcome.usage()).isEqualTo(new Usage(9, 3)));
    }

    @Test
    void errorEventInsideA200StreamIsReported() throws IOException {
        String stream = """
                event: message_start
                data: {"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}

                event: error
                data: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}

                """;
        StreamSettlement response = response(stream);
        response.body().readAllBytes();
        response.close();
        assertThat(this.outcomes).singleElement().satisfies((outcome) -> {
            assertThat(outcome.errorType()).isEqualTo("overloaded_error");
            assertThat(outcome.usage()).isEqualTo(new Usage(5, 1));
        });
    }

    @Test
    void textThatSaysErrorIsContentNotAnErrorEvent() throws IOException {
        String stream = """
                event: content_block_delta
                data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"error"}}

                event: content_block_delta
                data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\\"error\\": none"}}

                data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"error"}}]}

                """;
        StreamSettlement response = response(stream);
        response.body().readAllBytes();
        assertThat(this.outcomes).singleElement().satisfies((outcome) -> {
            assertThat(outcome.errorType()).isNull();
            assertThat(outcome.complete()).isTrue();
        });
    }

    @Test
    void openAiErrorChunkInsideA200StreamIsReported() throws IOException {
        String stream = """
                data: {"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}

                """;
        StreamSettlement response = response(stream);
        response.body().readAllBytes();
        assertThat(this.outcomes).singleElement()
            .satisfies((outcome) -> assertThat(outcome.errorType()).isEqualTo("rate_limit_exceeded"));
    }

    @Test
    void closingBeforeTheEndReportsAnIncompleteStreamOnce() throws IOException {
        StreamSettlement response = response(ANTHROPIC_STREAM);
        response.body().readNBytes(100);
        response.close();
        response.close();
        assertThat(this.outcomes).singleElement().satisfies((outcome) -> assertThat(outcome.complete()).isFalse());
    }

    @Test
    void closingAtTheLastEventWithoutReadingTheEndOfTheBodyIsAComplete() throws IOException {
        // a client that stops at message_stop and closes (as SDKs do) read the whole
        // answer
        StreamSettlement response = response(ANTHROPIC_STREAM);
        String read = new String(response.body().readNBytes(ANTHROPIC_STREAM.length() - 2), StandardCharsets.UTF_8);
        assertThat(read).contains("message_stop");
        response.close();
        assertThat(this.outcomes).singleElement().satisfies((outcome) -> assertThat(outcome.complete()).isTrue());
    }

    @Test
    void closingAtOpenAisDoneIsAComplete() throws IOException {
        String stream = """
                data: {"id":"c1","choices":[{"delta":{"content":"Hi"}}]}

                data: [DONE]

                """;
        StreamSettlement response = response(stream);
        response.body().readNBytes(stream.length() - 1);
        response.close();
        assertThat(this.outcomes).singleElement().satisfies((outcome) -> assertThat(outcome.complete()).isTrue());
    }

    @Test
    void responsesApiStreamSettlesFromTheCompletedEventsResponseUsage() throws IOException {
        String stream = """
                event: response.created
                data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","error":null,"usage":null}}

                event: response.output_text.delta
                data: {"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"error"}

                event: response.completed
                data: {"type":"response.completed","sequence_number":2,"response":{"id":"resp_1","object":"response","status":"completed","error":null,"usage":{"input_tokens":14,"input_tokens_details":{"cached_tokens":0},"output_tokens":21,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":35}}}

                """;
        StreamSettlement response = response(stream);
        response.body().readAllBytes();
        assertThat(this.outcomes).singleElement().satisfies((outcome) -> {
            assertThat(outcome.usage()).isEqualTo(new Usage(14, 21));
            assertThat(outcome.errorType()).isNull();
            assertThat(outcome.complete()).isTrue();
        });
    }

    @Test
    void responsesApiFailedEventIsReportedWithTheCodeOfItsResponsesError() throws IOException {
        assertThat(errorTypeOf(
                """
                        event: response.failed
                        data: {"type":"response.failed","sequence_number":3,"response":{"id":"resp_1","status":"failed","error":{"code":"rate_limit_exceeded","message":"Rate limit reached"},"usage":null}}

                        """))
            .isEqualTo("rate_limit_exceeded");
        assertThat(errorTypeOf(
                """
                        event: response.failed
                        data: {"type":"response.failed","sequence_number":3,"response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"The server had an error"}}}

                        """))
            .isEqualTo("error");
        assertThat(errorTypeOf(
                """
                        event: response.failed
                        data: {"type":"response.failed","sequence_number":3,"response":{"status":"failed","error":{"code":"server_is_overloaded"}}}

                        """))
            .isEqualTo("server_is_overloaded");
    }

    @Test
    void responsesApiErrorEventIsReportedWithItsCodeInEitherShape() throws IOException {
        assertThat(errorTypeOf(
                """
                        event: error
                        data: {"type":"error","sequence_number":2,"code":"rate_limit_exceeded","message":"Rate limit reached","param":null}

                        """))
            .isEqualTo("rate_limit_exceeded");
        assertThat(errorTypeOf(
                """
                        event: error
                        data: {"type":"error","sequence_number":2,"error":{"type":"server_error","code":"server_is_overloaded","message":"Overloaded"}}

                        """))
            .isEqualTo("server_is_overloaded");
    }

    @Test
    void responsesApiFailedEventWithoutEventLinesIsStillAnError() throws IOException {
        assertThat(errorTypeOf("""
                data: {"type":"response.failed","response":{"status":"failed","error":null}}

                """)).isEqualTo("error");
        assertThat(errorTypeOf(
                """
                        data: {"type":"response.incomplete","response":{"status":"incomplete","error":null,"incomplete_details":{"reason":"max_output_tokens"}}}

                        """))
            .isNull();
    }

    @Test
    void ollamaNdjsonStreamSettlesFromItsDoneLine() throws IOException {
        StreamSettlement response = response(OLLAMA_STREAM);
        assertThat(new String(response.body().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(OLLAMA_STREAM);
        assertThat(this.outcomes).singleElement().satisfies((outcome) -> {
            assertThat(outcome.usage()).isEqualTo(new Usage(26, 3));
            assertThat(outcome.errorType()).isNull();
            assertThat(outcome.complete()).isTrue();
        });
    }

    @Test
    void ollamaNdjsonStreamWhoseLastLineHasNoLineFeedIsStillSettled() throws IOException {
        StreamSettlement response = response(OLLAMA_STREAM.strip());
        response.body().readAllBytes();
        assertThat(this.outcomes).singleElement()
            .satisfies((outcome) -> assertThat(outcome.usage()).isEqualTo(new Usage(26, 3)));
    }

    @Test
    void ollamaNdjsonChunksReadByAnAsynchronousCallerSettleAsTheyArrive() {
        StreamSettlement response = response("");
        byte[] bytes = OLLAMA_STREAM.getBytes(StandardCharsets.UTF_8);
        for (int from = 0; from < bytes.length; from += 7) {
            response.chunk(ByteBuffer.wrap(bytes, from, Math.min(7, bytes.length - from)));
        }
        assertThat(this.outcomes).isEmpty();
        response.completed();
        assertThat(this.outcomes).singleElement().satisfies((outcome) -> {
            assertThat(outcome.usage()).isEqualTo(new Usage(26, 3));
            assertThat(outcome.complete()).isTrue();
        });
    }

    @Test
    void closingAnOllamaStreamBeforeItsDoneLineIsIncompleteAndAtItComplete() throws IOException {
        StreamSettlement early = response(OLLAMA_STREAM);
        early.body().readNBytes(OLLAMA_STREAM.indexOf("\"done\":true"));
        early.close();
        StreamSettlement atDone = response(OLLAMA_STREAM);
        atDone.body().readNBytes(OLLAMA_STREAM.length());
        atDone.close();
        assertThat(this.outcomes).extracting(StreamSettlement.Outcome::complete).containsExactly(false, true);
        assertThat(this.outcomes.get(0).usage()).isNull();
    }

    @Test
    void ollamaErrorLineInsideA200StreamIsReported() throws IOException {
        String stream = """
                {"model":"llama3.2","message":{"role":"assistant","content":"error"},"done":false}
                {"error":"an error was encountered while running the model: unexpected EOF"}
                """;
        assertThat(errorTypeOf(stream)).isEqualTo("error");
    }

    private @org.jspecify.annotations.Nullable String errorTypeOf(String stream) throws IOException {
        this.outcomes.clear();
        StreamSettlement response = response(stream);
        response.body().readAllBytes();
        assertThat(this.outcomes).hasSize(1);
        return this.outcomes.get(0).errorType();
    }

    private StreamSettlement response(String body) {
        return new StreamSettlement(new FixedResponse(body), new UsageReader(), this.outcomes::add, () -> 0L);
    }

    private static final class FixedResponse implements ProviderResponse {

        private final InputStream body;

        FixedResponse(String body) {
            this.body = new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public int status() {
            return 200;
        }

        @Override
        public Headers headers() {
            return Headers.EMPTY;
        }

        @Override
        public InputStream body() {
            return this.body;
        }

        @Override
        public void close() {
        }

    }

}
