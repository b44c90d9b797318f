package io.github.llmthrottle.provider;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class UsageReaderTests {

    private final UsageReader reader = new UsageReader();

    @Test
    void anthropicUsageCountsCacheWritesButNotCacheReads() {
        assertThat(read("""
                {"id":"msg_1","type":"message","usage":{"input_tokens":100,"cache_creation_input_tokens":20,
                 "cache_read_input_tokens":500,"output_tokens":42}}
                """)).isEqualTo(new Usage(120, 42, 500, 20, 620));
    }

    @Test
    void anthropicStreamStartCarriesTheCacheCountsOfItsPrompt() {
        Usage usage = read("""
                {"type":"message_start","message":{"id":"msg","usage":{"input_tokens":1000,
                 "cache_creation_input_tokens":0,"cache_read_input_tokens":30000,"output_tokens":1}}}
                """);
        assertThat(usage.inputTokens()).isEqualTo(1000);
        assertThat(usage.cacheReadTokens()).isEqualTo(30000);
        assertThat(usage.cacheWriteTokens()).isZero();
        assertThat(usage.promptTokens()).isEqualTo(31000);
    }

    @Test
    void openAiCachedTokensAreShownButStillCountAsInput() {
        assertThat(read("""
                {"object":"chat.completion","usage":{"prompt_tokens":2006,"completion_tokens":300,
                 "prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0}}}
                """)).isEqualTo(new Usage(2006, 300, 1920, 0, 2006));
        assertThat(read("""
                {"object":"response","usage":{"input_tokens":2006,"input_tokens_details":{"cached_tokens":1920},
                 "output_tokens":300,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":2306}}
                """)).isEqualTo(new Usage(2006, 300, 1920, 0, 2006));
    }

    @Test
    void openAiUsageReadsPromptAndCompletionTokens() {
        assertThat(read("""
                {"object":"chat.completion","usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}
                """)).isEqualTo(new Usage(11, 7));
    }

    @Test
    void anthropicMessageStartEventCarriesUsageInsideMessage() {
        assertThat(read("""
                {"type":"message_start","message":{"id":"msg","usage":{"input_tokens":11,"output_tokens":1}}}
                """)).isEqualTo(new Usage(11, 1));
    }

    @Test
    void bodiesWithoutUsageGiveNull() {
        assertThat(read("{\"usage\":null}")).isNull();
        assertThat(read("{\"type\":\"ping\"}")).isNull();
        assertThat(read("<html>oops</html>")).isNull();
    }

    @Test
    void responsesApiUsageReadsInputAndOutputTokensOfAPlainResponse() {
        assertThat(read("""
                {"id":"resp_1","object":"response","status":"completed","output":[{"type":"message",
                 "content":[{"type":"output_text","text":"Hi"}]}],"usage":{"input_tokens":36,
                 "input_tokens_details":{"cached_tokens":0},"output_tokens":87,
                 "output_tokens_details":{"reasoning_tokens":0},"total_tokens":123}}
                """)).isEqualTo(new Usage(36, 87));
    }

    @Test
    void responsesApiCompletedEventCarriesUsageInsideResponse() {
        assertThat(read("""
                {"type":"response.completed","sequence_number":9,"response":{"id":"resp_1","status":"completed",
                 "error":null,"usage":{"input_tokens":12,"output_tokens":30,"total_tokens":42}}}
                """)).isEqualTo(new Usage(12, 30));
        assertThat(read("""
                {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","usage":null}}
                """)).isNull();
    }

    @Test
    void ollamaAnswerCountsPromptEvalAndEvalCounts() {
        assertThat(read("""
                {"model":"llama3.2","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"Hi"},
                 "done_reason":"stop","done":true,"total_duration":5000,"prompt_eval_count":26,"eval_count":290}
                """)).isEqualTo(new Usage(26, 290));
    }

    @Test
    void ollamaGenerateAnswerCountsTooWhateverItsResponseAndContext() {
        assertThat(read("""
                {"model":"llama3.2","response":"The sky is blue.","done":true,"context":[1,2,3],
                 "prompt_eval_count":5,"eval_count":7}
                """)).isEqualTo(new Usage(5, 7));
    }

    @Test
    void ollamaEmbeddingCountsItsInputOnly() {
        assertThat(read("""
                {"model":"all-minilm","embeddings":[[0.1,0.2]],"total_duration":14143917,"prompt_eval_count":8}
                """)).isEqualTo(new Usage(8, 0));
    }

    @Test
    void ollamaStreamLinesBeforeTheLastHaveNoUsage() {
        assertThat(read("""
                {"model":"llama3.2","message":{"role":"assistant","content":"eval_count"},"done":false}
                """)).isNull();
    }

    @Test
    void onlyATopLevelTrueDoneEndsAnOllamaStream() {
        assertThat(isDone("{\"model\":\"m\",\"done\":true,\"eval_count\":3}")).isTrue();
        assertThat(isDone("{\"model\":\"m\",\"done\":false}")).isFalse();
        assertThat(isDone(
                "{\"message\":{\"tool_calls\":[{\"function\":{\"arguments\":{\"done\":true}}}]}," + "\"done\":false}"))
            .isFalse();
        assertThat(isDone("{\"done\":\"true\"}")).isFalse();
        assertThat(isDone("[true]")).isFalse();
    }

    private boolean isDone(String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return this.reader.isDone(bytes, 0, bytes.length);
    }

    private Usage read(String json) {
        return this.reader.read(json.getBytes(StandardCharsets.UTF_8));
    }

}
