package io.github.llmthrottle.test;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class GoDurationTests {

    private static String format(Duration duration) {
        return GoDuration.format(duration.toNanos());
    }

    @Test
    void formatsLikeGo() {
        assertThat(format(Duration.ZERO)).isEqualTo("0s");
        assertThat(format(Duration.ofMillis(12))).isEqualTo("12ms");
        assertThat(format(Duration.ofMillis(1146))).isEqualTo("1.146s");
        assertThat(format(Duration.ofMinutes(6))).isEqualTo("6m0s");
        assertThat(format(Duration.ofMillis(179_560))).isEqualTo("2m59.56s");
        assertThat(format(Duration.ofMillis(3_723_500))).isEqualTo("1h2m3.5s");
        assertThat(format(Duration.ofNanos(1_500))).isEqualTo("1.5µs");
        assertThat(format(Duration.ofNanos(999))).isEqualTo("999ns");
        assertThat(format(Duration.ofMillis(1500).negated())).isEqualTo("-1.5s");
    }

    @Test
    void formatMillisRoundsToWholeMilliseconds() {
        assertThat(GoDuration.formatMillis(1_146_372_918L)).isEqualTo("1.146s");
        assertThat(GoDuration.formatMillis(400_000L)).isEqualTo("0s");
    }

}
