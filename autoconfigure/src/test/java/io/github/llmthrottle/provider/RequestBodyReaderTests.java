package io.github.llmthrottle.provider;

import java.io.IOException;
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

    @Test
    void anthropicImagesAndDocumentsAreEstimatedApartFromTheirText() throws IOException {
        String image = MediaTokensTests.base64Image("png", 800, 600) + "A".repeat(1_000_000);
        LlmRequest request = read("""
                {"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":[
                 {"type":"image","source":{"type":"base64","media_type":"image/png","data":"%s"}},
                 {"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"}},
                 {"type":"text","text":"What is in these images?"}]}]}
                """.formatted(image));
        assertThat(request.textCharacters()).isLessThan(100);
        assertThat(request.mediaTokens()).isEqualTo(640 + MediaTokens.MAX_IMAGE_TOKENS);
    }

    @Test
    void openAiImageUrlsAreEstimatedApartFromTheirText() throws IOException {
        LlmRequest request = read("""
                {"model":"gpt-4o","messages":[{"role":"user","content":[
                 {"type":"text","text":"Describe"},
                 {"type":"image_url","image_url":{"url":"data:image/jpeg;base64,%s","detail":"high"}}]}]}
                """.formatted(MediaTokensTests.base64Image("jpg", 300, 200)));
        assertThat(request.textCharacters()).isLessThan(30);
        assertThat(request.mediaTokens()).isEqualTo(80);
    }

    @Test
    void responsesApiInstructionsAndStringInputAreEstimatedAndMaxOutputTokensReserved() {
        LlmRequest request = read("""
                {"model":"gpt-5","instructions":"Be brief.","input":"Hello there","max_output_tokens":256,
                 "stream":true,"previous_response_id":"resp_0123456789abcdef","store":true}
                """);
        assertThat(request.model()).isEqualTo("gpt-5");
        assertThat(request.maxOutputTokens()).isEqualTo(256);
        assertThat(request.stream()).isTrue();
        // "Be brief." (9) + "Hello there" (11): the earlier response's id is no prompt
        assertThat(request.textCharacters()).isEqualTo(20);
        assertThat(request.mediaTokens()).isZero();
    }

    @Test
    void responsesApiInputItemsCountTheirTextAndToolsCountAsText() {
        LlmRequest request = read("""
                {"model":"gpt-5","input":[
                 {"role":"user","content":[{"type":"input_text","text":"What is the weather?"}]},
                 {"type":"function_call_output","call_id":"c1","output":"sunny"}],
                 "tools":[{"type":"function","name":"weather","parameters":{"type":"object"}}]}
                """);
        // user (4) + input_text (10) + "What is the weather?" (20); function_call_output
        // (20) + c1 (2) + sunny (5); function (8) + weather (7) + object (6)
        assertThat(request.textCharacters()).isEqualTo(82);
        assertThat(request.mediaTokens()).isZero();
    }

    @Test
    void responsesApiImagesAndFilesAreEstimatedAsWhatTheyNameNotAsTheirReference() throws IOException {
        String pdf = java.util.Base64.getEncoder()
            .encodeToString("%PDF-1.4 /Type /Pages /Type /Page /Type /Page".getBytes(StandardCharsets.US_ASCII));
        LlmRequest request = read("""
                {"model":"gpt-5","input":[{"role":"user","content":[
                 {"type":"input_text","text":"Compare"},
                 {"type":"input_image","image_url":"https://example.com/cat.jpg","detail":"auto"},
                 {"file_id":"file-%s","type":"input_image"},
                 {"type":"input_image","image_url":"data:image/png;base64,%s"},
                 {"type":"input_file","file_id":"file-%s"},
                 {"type":"input_file","file_url":"https://example.com/%s.pdf"},
                 {"type":"input_file","filename":"a.pdf","file_data":"data:application/pdf;base64,%s"}]}]}
                """.formatted("x".repeat(5_000), MediaTokensTests.base64Image("png", 800, 600), "y".repeat(5_000),
                "z".repeat(5_000), pdf));
        // role, types, detail, filename and "Compare": no reference is read as text
        assertThat(request.textCharacters()).isLessThan(150);
        assertThat(request.mediaTokens()).isEqualTo(MediaTokens.MAX_IMAGE_TOKENS * 2 + 640
                + RequestBodyReader.FILE_REFERENCE_TOKENS * 2 + 2 * MediaTokens.TOKENS_PER_PAGE);
    }

    @Test
    void fileIdOutsideAResponsesInputPartIsCountedAsText() {
        LlmRequest request = read("""
                {"model":"gpt-5","input":[{"type":"item_reference","file_id":"abc"}]}
                """);
        // item_reference (14) + abc (3)
        assertThat(request.textCharacters()).isEqualTo(17);
        assertThat(request.mediaTokens()).isZero();
    }

}
