package io.github.llmthrottle.time;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class NanosTests {

    @Test
    void sumsAndDifferencesSaturateInsteadOfOverflowing() {
        assertThat(Nanos.saturatedAdd(1, 2)).isEqualTo(3);
        assertThat(Nanos.saturatedAdd(Long.MAX_VALUE - 1, 5)).isEqualTo(Long.MAX_VALUE);
        assertThat(Nanos.saturatedAdd(Long.MIN_VALUE + 1, -5)).isEqualTo(Long.MIN_VALUE);
        assertThat(Nanos.saturatedSubtract(5, 7)).isEqualTo(-2);
        assertThat(Nanos.saturatedSubtract(Long.MAX_VALUE, -1)).isEqualTo(Long.MAX_VALUE);
        assertThat(Nanos.saturatedSubtract(Long.MIN_VALUE, 1)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void durationsTooLongToCountSaturate() {
        assertThat(Nanos.of(Duration.ofSeconds(2))).isEqualTo(2_000_000_000L);
        assertThat(Nanos.of(Duration.ofDays(365L * 1000))).isEqualTo(Long.MAX_VALUE);
        assertThat(Nanos.of(Duration.ofDays(-365L * 1000))).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void betweenInstantsIsSignedAndSaturates() {
        Instant start = Instant.parse("2026-01-01T00:00:00Z");
        assertThat(Nanos.between(start, start.plusMillis(1500))).isEqualTo(1_500_000_000L);
        assertThat(Nanos.between(start.plusSeconds(1), start)).isEqualTo(-1_000_000_000L);
        assertThat(Nanos.between(Instant.MIN, Instant.MAX)).isEqualTo(Long.MAX_VALUE);
    }

}
