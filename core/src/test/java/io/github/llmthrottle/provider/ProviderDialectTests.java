package io.github.llmthrottle.provider;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ProviderDialectTests {

    @Test
    void anthropicDefaultsToItsPublicApiAndTheMessagesApiVersion() {
        assertThat(ProviderDialect.ANTHROPIC.defaultBaseUrl()).hasToString("https://api.anthropic.com");
        assertThat(ProviderDialect.ANTHROPIC.defaultHeaders())
            .containsExactly(Map.entry("anthropic-version", "2023-06-01"));
    }

    @Test
    void anthropicSendsTheKeyAsXApiKey() {
        assertThat(ProviderDialect.ANTHROPIC.authHeaders("sk-ant-1"))
            .containsExactly(Map.entry("x-api-key", "sk-ant-1"));
    }

    @Test
    void openAiDefaultsToItsPublicApiWithoutExtraHeaders() {
        assertThat(ProviderDialect.OPENAI.defaultBaseUrl()).hasToString("https://api.openai.com/v1");
        assertThat(ProviderDialect.OPENAI.defaultHeaders()).isEmpty();
    }

    @Test
    void openAiSendsTheKeyAsBearerAuthorization() {
        assertThat(ProviderDialect.OPENAI.authHeaders("sk-1"))
            .containsExactly(Map.entry("Authorization", "Bearer sk-1"));
    }

    @Test
    void ollamaDefaultsToALocalServerWithoutExtraHeadersAndSendsAKeyAsBearerAuthorization() {
        assertThat(ProviderDialect.OLLAMA.defaultBaseUrl()).hasToString("http://localhost:11434");
        assertThat(ProviderDialect.OLLAMA.defaultHeaders()).isEmpty();
        assertThat(ProviderDialect.OLLAMA.authHeaders("k")).containsExactly(Map.entry("Authorization", "Bearer k"));
    }

    @Test
    void genericHasNoDefaultBaseUrlNorHeadersAndSendsTheKeyAsBearerAuthorization() {
        assertThat(ProviderDialect.GENERIC.defaultBaseUrl()).isNull();
        assertThat(ProviderDialect.GENERIC.defaultHeaders()).isEmpty();
        assertThat(ProviderDialect.GENERIC.authHeaders("k")).containsExactly(Map.entry("Authorization", "Bearer k"));
    }

}
