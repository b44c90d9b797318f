package io.github.llmthrottle;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LlmThrottleExceptionTests {

    @Test
    void messageKeepsNamesARequestOrAProviderChoseOnOneLine() {
        LlmThrottleException exception = new LlmThrottleException("Model 'opus\r\nINFO forged line' refused",
                "anthropic", "opus\r\nINFO forged line", Duration.ofSeconds(1), null);
        assertThat(exception.getMessage()).isEqualTo("Model 'opus\\r\\nINFO forged line' refused");
        assertThat(exception.getModel()).isEqualTo("opus\r\nINFO forged line");
    }

    @Test
    void requestIdOfTheProviderIsEscapedToo() {
        RetriesExhaustedException exception = new RetriesExhaustedException("anthropic", "opus", 3,
                "429 rate_limit_error\r\nforged", null, new IllegalStateException("429"), "req_1\nforged");
        assertThat(exception.getMessage()).doesNotContain("\n", "\r")
            .contains("429 rate_limit_error\\r\\nforged")
            .endsWith("(request id req_1\\nforged)");
    }

}
