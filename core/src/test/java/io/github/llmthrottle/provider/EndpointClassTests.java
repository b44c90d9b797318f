package io.github.llmthrottle.provider;

import java.net.URI;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class EndpointClassTests {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            // model calls, at the public API and behind gateways, with queries and
            // trailing slashes
            "https://api.anthropic.com/v1/messages, MODEL_CALL", "https://api.anthropic.com/v1/messages/, MODEL_CALL",
            "https://api.anthropic.com/v1/messages?beta=true, MODEL_CALL",
            "https://gw.example.com/anthropic/v1/messages, MODEL_CALL",
            // token counting
            "https://api.anthropic.com/v1/messages/count_tokens, TOKEN_COUNT",
            "https://api.anthropic.com/v1/messages/count_tokens/?beta=true, TOKEN_COUNT",
            "https://gw.example.com/anthropic/v1/messages/count_tokens, TOKEN_COUNT",
            // everything else
            "https://api.anthropic.com/v1/messages/batches, PASS_THROUGH",
            "https://api.anthropic.com/v1/messages/batches/msgbatch_01/results, PASS_THROUGH",
            "https://api.anthropic.com/v1/messages/batches/msgbatch_01/cancel, PASS_THROUGH",
            "https://api.anthropic.com/v1/files, PASS_THROUGH",
            "https://api.anthropic.com/v1/files/file_011/content, PASS_THROUGH",
            "https://api.anthropic.com/v1/models, PASS_THROUGH",
            "https://api.anthropic.com/v1/models/claude-sonnet-4-5, PASS_THROUGH",
            "https://api.anthropic.com/v1/complete, PASS_THROUGH", "https://api.anthropic.com/, PASS_THROUGH",
            "https://api.anthropic.com, PASS_THROUGH",
            // a segment that only ends like one
            "https://api.anthropic.com/xv1/messages, PASS_THROUGH" })
    void anthropicPathsAreClassifiedByTheirLastSegments(String uri, EndpointClass expected) {
        assertThat(EndpointClass.of(ProviderDialect.ANTHROPIC, URI.create(uri))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({ "https://api.openai.com/v1/chat/completions, MODEL_CALL",
            "https://api.openai.com/v1/chat/completions/, MODEL_CALL",
            "https://api.openai.com/v1/responses, MODEL_CALL", "https://api.openai.com/v1/completions, MODEL_CALL",
            "https://api.openai.com/v1/embeddings, MODEL_CALL",
            "https://api.openai.com/v1/images/generations, MODEL_CALL",
            "https://api.openai.com/v1/images/edits, MODEL_CALL",
            "https://api.openai.com/v1/audio/transcriptions, MODEL_CALL",
            "https://api.openai.com/v1/audio/speech, MODEL_CALL", "https://api.openai.com/v1/moderations, MODEL_CALL",
            // behind a gateway's prefix, or a base URL without /v1
            "https://gw.example.com/openai/v1/chat/completions, MODEL_CALL",
            "https://gw.example.com/openai/v1/embeddings?user=a, MODEL_CALL",
            "https://api.openai.com/chat/completions, MODEL_CALL",
            // Azure OpenAI's deployment paths
            "https://x.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21, MODEL_CALL",
            // everything else
            "https://api.openai.com/v1/batches, PASS_THROUGH",
            "https://api.openai.com/v1/batches/batch_abc/cancel, PASS_THROUGH",
            "https://api.openai.com/v1/files, PASS_THROUGH",
            "https://api.openai.com/v1/files/file-abc/content, PASS_THROUGH",
            "https://gw.example.com/openai/v1/files/file-abc/content, PASS_THROUGH",
            "https://api.openai.com/v1/uploads, PASS_THROUGH",
            "https://api.openai.com/v1/uploads/upload_abc/parts, PASS_THROUGH",
            "https://api.openai.com/v1/models, PASS_THROUGH", "https://api.openai.com/v1/models/gpt-4o, PASS_THROUGH",
            "https://api.openai.com/v1/responses/resp_123, PASS_THROUGH",
            "https://api.openai.com/v1/responses/resp_123/input_items, PASS_THROUGH",
            "https://api.openai.com/v1/chat/completions/chatcmpl-1/messages, PASS_THROUGH",
            "https://api.openai.com/v1/images, PASS_THROUGH", "https://api.openai.com/v1/messages, PASS_THROUGH",
            "https://api.openai.com/v1, PASS_THROUGH" })
    void openAiPathsAreClassifiedByTheirLastSegments(String uri, EndpointClass expected) {
        assertThat(EndpointClass.of(ProviderDialect.OPENAI, URI.create(uri))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({ "http://localhost:11434/api/chat, MODEL_CALL", "http://localhost:11434/api/chat/, MODEL_CALL",
            "http://localhost:11434/api/generate, MODEL_CALL", "http://localhost:11434/api/embed, MODEL_CALL",
            "http://localhost:11434/api/embeddings, MODEL_CALL", "https://ollama.com/api/chat, MODEL_CALL",
            "https://gw.example.com/ollama/api/chat?x=1, MODEL_CALL",
            // model management
            "http://localhost:11434/api/tags, PASS_THROUGH", "http://localhost:11434/api/show, PASS_THROUGH",
            "http://localhost:11434/api/ps, PASS_THROUGH", "http://localhost:11434/api/version, PASS_THROUGH",
            "http://localhost:11434/api/pull, PASS_THROUGH", "http://localhost:11434/api/push, PASS_THROUGH",
            "http://localhost:11434/api/create, PASS_THROUGH", "http://localhost:11434/api/copy, PASS_THROUGH",
            "http://localhost:11434/api/delete, PASS_THROUGH",
            "http://localhost:11434/api/blobs/sha256:abc, PASS_THROUGH",
            "http://localhost:11434/v1/chat/completions, PASS_THROUGH", "http://localhost:11434, PASS_THROUGH",
            // a segment that only ends like one
            "http://localhost:11434/xapi/chat, PASS_THROUGH" })
    void ollamaPathsAreClassifiedByTheirLastSegments(String uri, EndpointClass expected) {
        assertThat(ProviderDialect.OLLAMA.classify(URI.create(uri))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({ "OLLAMA, http://localhost:11434/api/chat, true", "OLLAMA, http://localhost:11434/api/generate/, true",
            "OLLAMA, http://localhost:11434/api/embed, false", "OLLAMA, http://localhost:11434/api/embeddings, false",
            "OLLAMA, http://localhost:11434/api/pull, false",
            "OPENAI, https://api.openai.com/v1/chat/completions, false",
            "ANTHROPIC, https://api.anthropic.com/v1/messages, false",
            "GENERIC, https://llm.example.com/api/chat, false" })
    void onlyOllamasChatAndGenerateStreamByDefault(ProviderDialect dialect, String uri, boolean streams) {
        assertThat(dialect.streamsByDefault(URI.create(uri))).isEqualTo(streams);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({ "https://llm.example.com/v1/generate", "https://llm.example.com/v1/files/abc/content",
            "https://llm.example.com/v1/messages/batches", "https://llm.example.com" })
    void everyPathOfAGenericApiIsAModelCall(String uri) {
        assertThat(ProviderDialect.GENERIC.classify(URI.create(uri))).isEqualTo(EndpointClass.MODEL_CALL);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({ "/v1/messages, MODEL_CALL", "/v1/messages//, MODEL_CALL", "'', PASS_THROUGH", "/, PASS_THROUGH" })
    void aPathAloneIsClassifiedLikeItsUri(String path, EndpointClass expected) {
        assertThat(EndpointClass.of(ProviderDialect.ANTHROPIC, path)).isEqualTo(expected);
    }

}
