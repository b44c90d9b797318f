package io.github.llmthrottle.provider;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

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

    @Test
    void ollamaChatReadsModelNumPredictAndPromptCharacters() {
        LlmRequest request = this.reader.read("""
                {"model":"llama3.2","messages":[{"role":"system","content":"Be brief."},
                 {"role":"user","content":"Hello"}],"stream":false,"keep_alive":"5m",
                 "options":{"temperature":0.2,"stop":["x"],"num_predict":256},"format":{"type":"object"}}
                """.getBytes(StandardCharsets.UTF_8), true);
        assertThat(request.model()).isEqualTo("llama3.2");
        assertThat(request.maxOutputTokens()).isEqualTo(256L);
        assertThat(request.stream()).isFalse();
        assertThat(request.textCharacters()).isEqualTo("systemBe brief.userHello".length());
    }

    @Test
    void ollamaGenerateCountsItsPromptAndSystem() {
        LlmRequest request = read("{\"model\":\"llama3.2\",\"system\":\"Be brief.\",\"prompt\":\"Why?\"}");
        assertThat(request.textCharacters()).isEqualTo("Be brief.Why?".length());
        assertThat(request.maxOutputTokens()).isNull();
    }

    @Test
    void anAbsentOrNullStreamIsTheEndpointsDefault() {
        byte[] absent = "{\"model\":\"m\",\"messages\":[]}".getBytes(StandardCharsets.UTF_8);
        byte[] nullStream = "{\"model\":\"m\",\"stream\":null}".getBytes(StandardCharsets.UTF_8);
        byte[] notStreamed = "{\"model\":\"m\",\"stream\":false}".getBytes(StandardCharsets.UTF_8);
        assertThat(this.reader.read(absent, true).stream()).isTrue();
        assertThat(this.reader.read(nullStream, true).stream()).isTrue();
        assertThat(this.reader.read(notStreamed, true).stream()).isFalse();
        assertThat(this.reader.read(absent, false).stream()).isFalse();
        assertThat(this.reader.read(absent).stream()).isFalse();
    }

    @Test
    void aNegativeOrMissingNumPredictSetsNoCap() {
        assertThat(read("{\"model\":\"m\",\"options\":{\"num_predict\":-1}}").maxOutputTokens()).isNull();
        assertThat(read("{\"model\":\"m\",\"options\":{\"num_predict\":-2}}").maxOutputTokens()).isNull();
        assertThat(read("{\"model\":\"m\",\"options\":{\"temperature\":1}}").maxOutputTokens()).isNull();
        assertThat(read("{\"model\":\"m\",\"options\":null}").maxOutputTokens()).isNull();
    }

    @Test
    void ollamaImagesAreEstimatedApartFromTheirText() throws IOException {
        String image = MediaTokensTests.base64Image("png", 800, 600);
        LlmRequest chat = read("""
                {"model":"llava","messages":[{"role":"user","content":"What is this?","images":["%s"]}]}
                """.formatted(image));
        assertThat(chat.textCharacters()).isLessThan(30);
        assertThat(chat.mediaTokens()).isEqualTo(640);
        LlmRequest generate = read("""
                {"model":"llava","prompt":"What is this?","images":["%s"]}
                """.formatted(image));
        assertThat(generate.textCharacters()).isEqualTo("What is this?".length());
        assertThat(generate.mediaTokens()).isEqualTo(640);
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
    void aPromptWithoutBreakpointsHasNoCachePrefixes() {
        assertThat(read("""
                {"model":"m","system":[{"type":"text","text":"You are helpful."}],
                 "messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}]}
                """).cachePrefixes()).isEmpty();
    }

    @Test
    void theSystemPromptBeforeABreakpointIsACachePrefixWithItsCharacters() {
        LlmRequest request = read(agentTurn("Question one?", "5m"));
        assertThat(request.cachePrefixes()).hasSize(1);
        PromptPrefix prefix = request.cachePrefixes().get(0);
        assertThat(prefix.breakpoint()).isTrue();
        assertThat(prefix.ttl()).isEqualTo(Duration.ofMinutes(5));
        // "text" (4) + the prompt (30,000), the breakpoint itself not counted
        assertThat(prefix.textCharacters()).isEqualTo(30_004);
        assertThat(request.textCharacters()).isGreaterThan(30_004);
        assertThat(request.after(prefix).textCharacters()).isEqualTo(request.textCharacters() - 30_004);
    }

    @Test
    void theSamePrefixHashesAlikeWhateverFollowsItOrTheOrderOfTheFields() {
        PromptPrefix first = read(agentTurn("Question one?", "5m")).cachePrefixes().get(0);
        PromptPrefix second = read(agentTurn("Another, longer question?", "5m")).cachePrefixes().get(0);
        PromptPrefix reordered = read("""
                {"messages":[{"role":"user","content":[{"type":"text","text":"Third"}]}],
                 "system":[{"type":"text","text":"%s","cache_control":{"type":"ephemeral"}}],
                 "model":"claude-sonnet-4-5","max_tokens":2000}
                """.formatted(SYSTEM)).cachePrefixes().get(0);
        PromptPrefix otherSystem = read(agentTurn("Question one?", "5m").replace("You are", "You were")).cachePrefixes()
            .get(0);
        assertThat(second.hash()).isEqualTo(first.hash());
        assertThat(reordered.hash()).isEqualTo(first.hash());
        assertThat(otherSystem.hash()).isNotEqualTo(first.hash());
    }

    @Test
    void anHourLongBreakpointHasAnHourLongTtl() {
        assertThat(read(agentTurn("Q", "1h")).cachePrefixes().get(0).ttl()).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void toolsComeBeforeTheSystemPromptInTheCachedOrder() {
        LlmRequest request = read("""
                {"model":"m","max_tokens":10,
                 "system":[{"type":"text","text":"Rules","cache_control":{"type":"ephemeral"}}],
                 "tools":[{"name":"weather","description":"Weather of a city",
                           "input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}],
                 "messages":[{"role":"user","content":"Hi"}]}
                """);
        // the tool (its breakpoint-less block) is looked back to, then the system block
        assertThat(request.cachePrefixes()).hasSize(2);
        PromptPrefix tools = request.cachePrefixes().get(0);
        PromptPrefix system = request.cachePrefixes().get(1);
        assertThat(tools.breakpoint()).isFalse();
        assertThat(system.breakpoint()).isTrue();
        assertThat(system.textCharacters()).isEqualTo(tools.textCharacters() + "text".length() + "Rules".length());
    }

    @Test
    void aMovingBreakpointLooksBackToTheBlocksOfTheEarlierTurn() {
        String turn1 = """
                {"model":"m","max_tokens":10,"messages":[
                 {"role":"user","content":[{"type":"text","text":"%s","cache_control":{"type":"ephemeral"}}]}]}
                """.formatted(SYSTEM);
        String turn2 = """
                {"model":"m","max_tokens":10,"messages":[
                 {"role":"user","content":[{"type":"text","text":"%s"}]},
                 {"role":"assistant","content":[{"type":"text","text":"An answer"}]},
                 {"role":"user","content":[{"type":"text","text":"More","cache_control":{"type":"ephemeral"}}]}]}
                """.formatted(SYSTEM);
        PromptPrefix written = read(turn1).cachePrefixes().get(0);
        assertThat(read(turn2).cachePrefixes()).extracting(PromptPrefix::hash).contains(written.hash());
    }

    @Test
    void aTextDocumentIsTextAndDocumentsByReferenceCostTheConfiguredTokens() {
        LlmRequest request = new RequestBodyReader(2_500).read("""
                {"model":"m","max_tokens":10,"messages":[{"role":"user","content":[
                 {"type":"document","source":{"type":"text","media_type":"text/plain","data":"%s"}},
                 {"type":"document","source":{"type":"url","url":"https://example.com/report.pdf"}},
                 {"source":{"type":"file","file_id":"file_011CNha8iCJcU1wXNR6q4V8w"},"type":"document"},
                 {"type":"image","source":{"type":"file","file_id":"file_011CPMxVD3fHLUhvTqtsQA5w"}},
                 {"type":"text","text":"Summarize"}]}]}
                """.formatted("x".repeat(10_000)).getBytes(StandardCharsets.UTF_8));
        assertThat(request.textCharacters()).isBetween(10_000L, 10_200L);
        assertThat(request.mediaTokens()).isEqualTo(2 * 2_500 + MediaTokens.MAX_IMAGE_TOKENS);
        assertThat(request.isTextOnly()).isFalse();
    }

    @Test
    void openAiFilesByReferenceCostTheConfiguredTokens() {
        LlmRequest chat = read("""
                {"model":"gpt-4o","messages":[{"role":"user","content":[
                 {"type":"file","file":{"file_id":"file-6F2ksmvXxt4VdoqmHRw6kL"}},{"type":"text","text":"Sum up"}]}]}
                """);
        LlmRequest responses = read("""
                {"model":"gpt-5","instructions":"Be brief","input":[{"role":"user","content":[
                 {"type":"input_file","file_url":"https://example.com/a.pdf"},
                 {"type":"input_image","file_id":"file-abc"},{"type":"input_text","text":"Sum up"}]}]}
                """);
        assertThat(chat.mediaTokens()).isEqualTo(RequestBodyReader.DEFAULT_DOCUMENT_TOKENS);
        assertThat(responses.mediaTokens())
            .isEqualTo(RequestBodyReader.DEFAULT_DOCUMENT_TOKENS + MediaTokens.MAX_IMAGE_TOKENS);
        assertThat(responses.textCharacters()).isGreaterThanOrEqualTo("Be brief".length() + "Sum up".length());
    }

    @Test
    void toolDefinitionsCountWithTheirPropertyNames() {
        LlmRequest request = read("""
                {"model":"m","tools":[{"name":"w","input_schema":{"type":"object",
                 "properties":{"a_rather_long_property_name":{"type":"string"}}}}],"messages":[]}
                """);
        assertThat(request.textCharacters()).isGreaterThanOrEqualTo("a_rather_long_property_name".length());
    }

    @Test
    void aNegativeDocumentTokensIsRefusedNamingIt() {
        assertThatIllegalArgumentException().isThrownBy(() -> new RequestBodyReader(-1))
            .withMessageContaining("documentTokens");
    }

    private static final String SYSTEM = "You are a careful agent. " + "y".repeat(30_000 - 25);

    private static String agentTurn(String question, String ttl) {
        return """
                {"model":"claude-sonnet-4-5","max_tokens":2000,
                 "system":[{"type":"text","text":"%s","cache_control":{"type":"ephemeral","ttl":"%s"}}],
                 "messages":[{"role":"user","content":[{"type":"text","text":"%s"}]}]}
                """.formatted(SYSTEM, ttl, question);
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
        // the provider adds the earlier turns, which the body does not show
        assertThat(request.isTextOnly()).isFalse();
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
        // (20) + c1 (2) + sunny (5); function (8) + weather (7) + object (6); the tool's
        // property names: type (4) + name (4) + parameters (10) + type (4)
        assertThat(request.textCharacters()).isEqualTo(104);
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
                + RequestBodyReader.DEFAULT_DOCUMENT_TOKENS * 2 + 2 * MediaTokens.TOKENS_PER_PAGE);
    }

}
