package io.github.llmthrottle.provider;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RequestBodyReaderTests {

    private final RequestBodyReader reader = new RequestBodyReader();

    @Test
    void anthropicRequestGivesModelMaxTokensAndPromptCharacters() {
        LlmRequest request = read("""
                {"model":"claude-opus-4-7","max_tokens":1024,"system":"Be brief.",
                 "messages":[{"role":"user","content":[{"type":"text","text":"Hello there"}]}]}
                """);
        assertThat(request.model()).isEqualTo("claude-opus-4-7");
        assertThat(request.maxOutputTokens()).isEqualTo(1024);
        assertThat(request.stream()).isFalse();
        // "Be brief." (9) + "user" (4) + "text" (4) + "Hello there" (11)
        assertThat(request.textCharacters()).isEqualTo(28);
    }

    @Test
    void openAiRequestReadsMaxCompletionTokensAndStreamOptions() {
        LlmRequest request = read("""
                {"model":"gpt-4o","max_completion_tokens":300,"stream":true,
                 "stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Hi"}]}
                """);
        assertThat(request.model()).isEqualTo("gpt-4o");
        assertThat(request.maxOutputTokens()).isEqualTo(300);
        assertThat(request.stream()).isTrue();
        assertThat(request.includeUsage()).isTrue();
        assertThat(request.textCharacters()).isEqualTo(6);
    }

    @Test
    void unrelatedFieldsAreSkippedWhateverTheirShape() {
        LlmRequest request = read("""
                {"metadata":{"user_id":"a very long identifier","nested":[1,2,{"x":"y"}]},"temperature":0.2,
                 "model":"m","max_tokens":5,"messages":[]}
                """);
        assertThat(request.model()).isEqualTo("m");
        assertThat(request.maxOutputTokens()).isEqualTo(5);
        assertThat(request.textCharacters()).isZero();
    }

    @Test
    void bodyThatIsNotJsonGivesUnknownRequestWithoutException() {
        assertThat(read("not json at all").model()).isNull();
        assertThat(read("{\"model\": ").model()).isNull();
        assertThat(read("[1,2,3]").model()).isNull();
        assertThat(this.reader.read(new byte[0]).bodyBytes()).isZero();
    }

    @Test
    void negativeOrNonNumericMaxTokensIsIgnored() {
        assertThat(read("{\"model\":\"m\",\"max_tokens\":-3}").maxOutputTokens()).isNull();
        assertThat(read("{\"model\":\"m\",\"max_tokens\":\"many\"}").maxOutputTokens()).isNull();
    }

    private LlmRequest read(String json) {
        return this.reader.read(json.getBytes(StandardCharsets.UTF_8));
    }

}
