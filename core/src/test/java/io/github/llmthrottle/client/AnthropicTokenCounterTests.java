package io.github.llmthrottle.client;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.github.llmthrottle.provider.Headers;
import io.github.llmthrottle.provider.ProviderDialect;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AnthropicTokenCounterTests {

    private final AnthropicTokenCounter counter = new AnthropicTokenCounter(
            ClientSettings.defaults("a", ProviderDialect.ANTHROPIC, URI.create("https://api.anthropic.com")),
            Duration.ofSeconds(2));

    @Test
    void theCountGoesToTheCallersMessagesUrlWithCountTokensAfterItAndNoQuery() throws Exception {
        assertThat(AnthropicTokenCounter.countTokensUri(URI.create("https://api.anthropic.com/v1/messages")))
            .isEqualTo(URI.create("https://api.anthropic.com/v1/messages/count_tokens"));
        assertThat(AnthropicTokenCounter
            .countTokensUri(URI.create("http://gateway.local:8080/anthropic/v1/messages/?beta=true")))
            .isEqualTo(URI.create("http://gateway.local:8080/anthropic/v1/messages/count_tokens"));
    }

    @Test
    void theBodyKeepsOnlyWhatTokenCountingAcceptsAndNamesTheModel() {
        String body = """
                {"max_tokens":1024,"stream":true,"temperature":0.2,"metadata":{"user_id":"u"},
                 "system":[{"type":"text","text":"Be brief","cache_control":{"type":"ephemeral"}}],
                 "messages":[{"role":"user","content":"Hello"}],"tools":[{"name":"t","input_schema":{}}],
                 "tool_choice":{"type":"auto"},"stop_sequences":["x"]}""";
        String counted = new String(this.counter.countingBody("claude-opus-4-7", body.getBytes(StandardCharsets.UTF_8)),
                StandardCharsets.UTF_8);
        assertThat(counted).isEqualTo("{\"model\":\"claude-opus-4-7\","
                + "\"system\":[{\"type\":\"text\",\"text\":\"Be brief\",\"cache_control\":{\"type\":\"ephemeral\"}}],"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}],\"tools\":[{\"name\":\"t\",\"input_schema\":{}}],"
                + "\"tool_choice\":{\"type\":\"auto\"}}");
    }

    @Test
    void aBodyThatIsNotAJsonObjectIsNotCounted() {
        assertThat(
                this.counter
                    .countInputTokens("m",
                            new ProviderRequest("POST", URI.create("https://api.anthropic.com/v1/messages"),
                                    Headers.EMPTY, "[1]".getBytes(StandardCharsets.UTF_8), false)))
            .isCompletedExceptionally();
    }

}
