package io.github.llmthrottle.provider;

import java.time.Duration;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class GoDurationTests {

    @Test
    @DisplayName("1s is one second")
    void parsesWholeSeconds() {
        assertThat(GoDuration.parse("1s")).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    @DisplayName("6m0s is 360 seconds")
    void parsesMinutesAndSeconds() {
        assertThat(GoDuration.parse("6m0s")).isEqualTo(Duration.ofSeconds(360));
    }

    @Test
    @DisplayName("12ms and 9ms are milliseconds")
    void parsesMilliseconds() {
        assertThat(GoDuration.parse("12ms")).isEqualTo(Duration.ofMillis(12));
        assertThat(GoDuration.parse("9ms")).isEqualTo(Duration.ofMillis(9));
    }

    @Test
    @DisplayName("1h2m3.5s is 3723.5 seconds")
    void parsesHoursMinutesAndFractionalSeconds() {
        assertThat(GoDuration.parse("1h2m3.5s")).isEqualTo(Duration.ofMillis(3_723_500));
    }

    @Test
    @DisplayName("Groq's 2m59.56s is 179.56 seconds")
    void parsesFractionalSecondsAfterMinutes() {
        assertThat(GoDuration.parse("2m59.56s")).isEqualTo(Duration.ofMillis(179_560));
    }

    @Test
    @DisplayName("Groq's token resets 7.66s, 547ms and 33.023s are read to the millisecond")
    void parsesGroqTokenResets() {
        assertThat(GoDuration.parse("7.66s")).isEqualTo(Duration.ofMillis(7_660));
        assertThat(GoDuration.parse("547ms")).isEqualTo(Duration.ofMillis(547));
        assertThat(GoDuration.parse("33.023s")).isEqualTo(Duration.ofMillis(33_023));
    }

    @Test
    @DisplayName("0s and a bare 0 are zero")
    void parsesZero() {
        assertThat(GoDuration.parse("0s")).isEqualTo(Duration.ZERO);
        assertThat(GoDuration.parse("0")).isEqualTo(Duration.ZERO);
    }

    @ParameterizedTest
    @ValueSource(strings = { "1.5\u00b5s", "1.5us", "1.5\u03bcs" })
    @DisplayName("1.5 microseconds in every spelling is 1500 ns")
    void parsesMicrosecondsInEverySpelling(String value) {
        assertThat(GoDuration.parse(value)).isEqualTo(Duration.ofNanos(1500));
    }

    @ParameterizedTest
    @ValueSource(
            strings = { "6 minutes", "", " ", "s", "1", "1.5", "1x", "1s2", "abc", "--1s", "1.2.3s", "inf", "NaN" })
    @DisplayName("anything that is not a Go duration is null")
    void rejectsAnythingElse(String value) {
        assertThat(GoDuration.parse(value)).isNull();
    }

    @Test
    void nullIsNull() {
        assertThat(GoDuration.parse(null)).isNull();
    }

    @Test
    @DisplayName("a bare number means seconds when the caller asks for it")
    void parsesBareSecondsOnRequest() {
        assertThat(GoDuration.parse("64", true)).isEqualTo(Duration.ofSeconds(64));
        assertThat(GoDuration.parse("0.5", true)).isEqualTo(Duration.ofMillis(500));
        assertThat(GoDuration.parse("64", false)).isNull();
        assertThat(GoDuration.parse("6m0s", true)).isEqualTo(Duration.ofMinutes(6));
    }

    @Test
    void keepsTheSignAndSumsUnitsInAnyOrder() {
        assertThat(GoDuration.parse("-1.5s")).isEqualTo(Duration.ofMillis(-1500));
        assertThat(GoDuration.parse("1s1m")).isEqualTo(Duration.ofSeconds(61));
        assertThat(GoDuration.parse(".5s")).isEqualTo(Duration.ofMillis(500));
        assertThat(GoDuration.parse("1.s")).isEqualTo(Duration.ofSeconds(1));
        assertThat(GoDuration.parse("72h3m0.5s")).isEqualTo(Duration.ofHours(72).plusMinutes(3).plusMillis(500));
    }

    @Test
    void overflowIsNull() {
        assertThat(GoDuration.parse("9999999999999999999h")).isNull();
        assertThat(GoDuration.parse("9".repeat(200) + "s")).isNull();
    }

}
