package io.github.llmthrottle.provider;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class HttpDatesTests {

    private static final Instant NOW = Instant.parse("2023-09-29T16:26:37Z");

    @Test
    @DisplayName("an IMF-fixdate is read as the instant it names")
    void parsesImfFixdate() {
        assertThat(HttpDates.parse("Fri, 29 Sep 2023 16:26:57 GMT", NOW)).isEqualTo("2023-09-29T16:26:57Z");
    }

    @Test
    @DisplayName("an RFC 850 date with a two-digit year is placed in the past century")
    void parsesRfc850() {
        assertThat(HttpDates.parse("Sunday, 06-Nov-94 08:49:37 GMT", NOW)).isEqualTo("1994-11-06T08:49:37Z");
    }

    @Test
    void placesRfc850TwoDigitYearsWithinFiftyYears() {
        assertThat(HttpDates.parse("Sunday, 06-Nov-24 08:49:37 GMT", NOW)).isEqualTo("2024-11-06T08:49:37Z");
        assertThat(HttpDates.parse("Sunday, 06-Nov-73 08:49:37 GMT", NOW)).isEqualTo("2073-11-06T08:49:37Z");
        assertThat(HttpDates.parse("Sunday, 06-Nov-74 08:49:37 GMT", NOW)).isEqualTo("1974-11-06T08:49:37Z");
    }

    @Test
    @DisplayName("an asctime date is read, with the double space before a one-digit day")
    void parsesAsctime() {
        assertThat(HttpDates.parse("Sun Nov  6 08:49:37 1994", NOW)).isEqualTo("1994-11-06T08:49:37Z");
        assertThat(HttpDates.parse("Sun Nov 16 08:49:37 1994", NOW)).isEqualTo("1994-11-16T08:49:37Z");
    }

    @Test
    @DisplayName("the date the Java SDK sends is read")
    void parsesJavaSdkDate() {
        assertThat(HttpDates.parse("Wed, 21 Oct 2015 07:28:00 GMT", NOW)).isEqualTo("2015-10-21T07:28:00Z");
    }

    @Test
    @DisplayName("a one-digit day, as java.time's RFC_1123_DATE_TIME writes it, is read like a two-digit one")
    void parsesOneDigitDay() {
        Instant first = Instant.parse("2026-12-01T15:09:00Z");
        String written = DateTimeFormatter.RFC_1123_DATE_TIME.format(first.atZone(ZoneOffset.UTC));
        assertThat(written).isEqualTo("Tue, 1 Dec 2026 15:09:00 GMT");
        assertThat(HttpDates.parse(written, NOW)).isEqualTo(first);
        assertThat(HttpDates.parse("Tue, 01 Dec 2026 15:09:00 GMT", NOW)).isEqualTo(first);
    }

    @ParameterizedTest
    @ValueSource(strings = { "Fri, 29 Sep 100000 16:26:57 GMT", "Zun, 29 Sep 2023 16:26:27 GMT",
            "Fri, 31 Feb 2023 16:26:27 GMT", "Fri, 29 Sep 2023 25:26:27 GMT", "Fri, 29 Xyz 2023 16:26:27 GMT",
            "Fri, 29 Sep 2023 16:26:27 UTC", "Fri, 009 Sep 2023 16:26:27 GMT", "Sun Nov 6 08:49:37 1994",
            "Funday, 06-Nov-94 08:49:37 GMT", "2023-09-29T16:26:37Z", "", "not-a-date-or-number", "20" })
    @DisplayName("malformed or out-of-range dates are null, never an exception")
    void rejectsMalformedDates(String value) {
        assertThat(HttpDates.parse(value, NOW)).isNull();
    }

    @Test
    void toleratesSurroundingSpaceAndCase() {
        assertThat(HttpDates.parse("  fri, 29 SEP 2023 16:26:57 GMT ", NOW)).isEqualTo("2023-09-29T16:26:57Z");
    }

    @Test
    void nullIsNull() {
        assertThat(HttpDates.parse(null, NOW)).isNull();
    }

}
