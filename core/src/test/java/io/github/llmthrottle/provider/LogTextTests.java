package io.github.llmthrottle.provider;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Text from providers and requests kept on one log line.
 */
class LogTextTests {

    @Test
    void lineBreaksTabsAndOtherControlCharactersAreWrittenAsEscapes() {
        assertThat(LogText.escape("a\r\nb\tc\u0000d\u001be\u2028f\u0085g"))
            .isEqualTo("a\\r\\nb\\tc\\u0000d\\u001be\\u2028f\\u0085g");
    }

    @Test
    void printableTextIsReturnedAsItIs() {
        String text = "claude-sonnet-4-5 (rate_limit_error) é ✓";
        assertThat(LogText.escape(text)).isSameAs(text);
    }

}
