package io.github.llmthrottle.retry;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

import io.github.llmthrottle.provider.Headers;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.provider.ProviderError;
import io.github.llmthrottle.provider.RateLimitHeaders;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.time.FakeClock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;

class RetryAfterTests {

    private final FakeClock clock = FakeClock.at("2023-09-29T16:26:37Z");

    @Test
    @DisplayName("retry-after 20 is a wait of 20 s")
    void readsWholeSeconds() {
        assertThat(retryAfter("20")).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    @DisplayName("a fractional retry-after such as 1.234 is read to the millisecond")
    void readsFractionalSeconds() {
        assertThat(retryAfter("1.234")).isEqualTo(Duration.ofMillis(1234));
    }

    @Test
    @DisplayName("retry-after 0 is a wait of zero")
    void readsZero() {
        assertThat(retryAfter("0")).isEqualTo(Duration.ZERO);
    }

    @ParameterizedTest
    @ValueSource(strings = { "-10", "", " ", "not-a-date-or-number", "99999999999999999999999999999999999", "inf",
            "nan", "NaN", "Infinity", "-inf", "1e3", "0x10", "+5", "Zun, 29 Sep 2023 16:26:27 GMT",
            "Fri, 29 Sep 100000 16:26:57 GMT", "Fri, 29 Sep 2123 16:26:57 GMT" })
    @DisplayName("negative, empty, malformed, absurd and non-finite values are ignored")
    void ignoresInvalidValues(String value) {
        assertThat(retryAfter(value)).isNull();
        assertThat(RetryAfter.fromHeaders(view(headers("retry-after", value)), this.clock)).isNull();
    }

    @Test
    @DisplayName("a value of up to 366 days is read; one second more is ignored")
    void readsLongButPlausibleValues() {
        assertThat(retryAfter(Long.toString(Duration.ofDays(366).toSeconds()))).isEqualTo(Duration.ofDays(366));
        assertThat(retryAfter(Long.toString(Duration.ofDays(366).toSeconds() + 1))).isNull();
    }

    @Test
    @DisplayName("an HTTP-date 20 s ahead is a wait of 20 s")
    void readsDateAhead() {
        assertThat(retryAfter("Fri, 29 Sep 2023 16:26:57 GMT")).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    @DisplayName("an HTTP-date equal to now is zero")
    void readsDateNow() {
        assertThat(retryAfter("Fri, 29 Sep 2023 16:26:37 GMT")).isEqualTo(Duration.ZERO);
    }

    @Test
    @DisplayName("an HTTP-date in the past is clamped to zero, never negative")
    void clampsDateInThePast() {
        assertThat(retryAfter("Fri, 29 Sep 2023 16:26:27 GMT")).isEqualTo(Duration.ZERO);
    }

    @Test
    @DisplayName("the date the Java SDK sends, 5 s ahead, is a wait of 5 s")
    void readsJavaSdkDate() {
        FakeClock javaClock = FakeClock.at("2015-10-21T07:27:55Z");
        assertThat(RetryAfter.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", javaClock.instant()))
            .isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    @DisplayName("obsolete RFC 850 and asctime dates are read like any HTTP-date (zero when past)")
    void readsObsoleteDateForms() {
        assertThat(retryAfter("Sunday, 06-Nov-94 08:49:37 GMT")).isEqualTo(Duration.ZERO);
        assertThat(retryAfter("Sun Nov  6 08:49:37 1994")).isEqualTo(Duration.ZERO);
        assertThat(retryAfter("Friday, 29-Sep-23 16:26:57 GMT")).isEqualTo(Duration.ofSeconds(20));
        assertThat(retryAfter("Fri Sep 29 16:26:57 2023")).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    @DisplayName("retry-after-ms 10 is a wait of 10 ms")
    void readsRetryAfterMs() {
        RetryAfter wait = RetryAfter.fromHeaders(view(headers("retry-after-ms", "10")), this.clock);
        assertThat(wait).isEqualTo(new RetryAfter(Duration.ofMillis(10), RetryAfter.Source.RETRY_AFTER_MS));
    }

    @Test
    @DisplayName("retry-after-ms beats retry-after")
    void prefersRetryAfterMs() {
        HttpHeaders headers = headers("retry-after-ms", "50");
        headers.add("retry-after", "2");
        assertThat(RetryAfter.fromHeaders(headers::getOrEmpty, this.clock))
            .isEqualTo(new RetryAfter(Duration.ofMillis(50), RetryAfter.Source.RETRY_AFTER_MS));
    }

    @Test
    @DisplayName("large and fractional retry-after-ms values are read exactly")
    void readsLargeMillis() {
        assertThat(RetryAfter.parseMillis("120000")).isEqualTo(Duration.ofSeconds(120));
        assertThat(RetryAfter.parseMillis("120001")).isEqualTo(Duration.ofMillis(120_001));
        assertThat(RetryAfter.parseMillis("1.5")).isEqualTo(Duration.ofNanos(1_500_000));
    }

    @Test
    @DisplayName("Azure's x-ms-retry-after-ms 1500 is a wait of 1.5 s")
    void readsAzureMillis() {
        assertThat(RetryAfter.fromHeaders(view(headers("x-ms-retry-after-ms", "1500")), this.clock))
            .isEqualTo(new RetryAfter(Duration.ofMillis(1500), RetryAfter.Source.X_MS_RETRY_AFTER_MS));
    }

    @Test
    void takesTheHeadersInOrderAndSkipsUnusableOnes() {
        HttpHeaders headers = headers("retry-after-ms", "garbage");
        headers.add("x-ms-retry-after-ms", "-5");
        headers.add("retry-after", "3");
        assertThat(RetryAfter.fromHeaders(headers::getOrEmpty, this.clock))
            .isEqualTo(new RetryAfter(Duration.ofSeconds(3), RetryAfter.Source.RETRY_AFTER));
        headers.set("x-ms-retry-after-ms", "700");
        assertThat(RetryAfter.fromHeaders(headers::getOrEmpty, this.clock))
            .isEqualTo(new RetryAfter(Duration.ofMillis(700), RetryAfter.Source.X_MS_RETRY_AFTER_MS));
    }

    @Test
    void readsHeaderNamesCaseInsensitively() {
        assertThat(RetryAfter.fromHeaders(view(headers("Retry-After-Ms", "10")), this.clock)).isNotNull();
        assertThat(RetryAfter.fromHeaders(view(headers("RETRY-AFTER", "4")), this.clock)).isNotNull();
    }

    @Test
    @DisplayName("Retry-After beats the reset header of the exhausted dimension")
    void prefersRetryAfterOverReset() {
        HttpHeaders headers = headers("retry-after", "2");
        headers.add("x-ratelimit-remaining-tokens", "0");
        headers.add("x-ratelimit-reset-tokens", "7.66s");
        assertThat(resolve(ProviderDialect.OPENAI, headers, null))
            .isEqualTo(new RetryAfter(Duration.ofSeconds(2), RetryAfter.Source.RETRY_AFTER));
    }

    @Test
    @DisplayName("without Retry-After the reset of the exhausted dimension is the wait")
    void fallsBackToTheExhaustedDimensionsReset() {
        HttpHeaders headers = headers("x-ratelimit-remaining-requests", "0");
        headers.add("x-ratelimit-reset-requests", "2m59.56s");
        headers.add("x-ratelimit-remaining-tokens", "17000");
        headers.add("x-ratelimit-reset-tokens", "7.66s");
        assertThat(resolve(ProviderDialect.OPENAI, headers, null))
            .isEqualTo(new RetryAfter(Duration.ofMillis(179_560), RetryAfter.Source.RESET_HEADER));
    }

    @Test
    @DisplayName("without Retry-After, Anthropic's exhausted input-token reset, measured from now, is the wait")
    void fallsBackToAnthropicReset() {
        HttpHeaders headers = headers("anthropic-ratelimit-input-tokens-remaining", "0");
        headers.add("anthropic-ratelimit-input-tokens-reset", "2023-09-29T16:27:00Z");
        headers.add("anthropic-ratelimit-requests-remaining", "48");
        headers.add("anthropic-ratelimit-requests-reset", "2023-09-29T16:28:00Z");
        assertThat(resolve(ProviderDialect.ANTHROPIC, headers, null))
            .isEqualTo(new RetryAfter(Duration.ofSeconds(23), RetryAfter.Source.RESET_HEADER));
    }

    @Test
    void takesTheLatestResetWhenSeveralDimensionsAreExhausted() {
        HttpHeaders headers = headers("x-ratelimit-remaining-requests", "0");
        headers.add("x-ratelimit-reset-requests", "1s");
        headers.add("x-ratelimit-remaining-tokens", "-27689");
        headers.add("x-ratelimit-reset-tokens", "64");
        assertThat(resolve(ProviderDialect.OPENAI, headers, null).duration()).isEqualTo(Duration.ofSeconds(64));
    }

    @Test
    void ignoresResetsOfDimensionsWithHeadroom() {
        HttpHeaders headers = headers("x-ratelimit-remaining-tokens", "100");
        headers.add("x-ratelimit-reset-tokens", "6m0s");
        assertThat(resolve(ProviderDialect.OPENAI, headers, null)).isNull();
    }

    @Test
    @DisplayName("Retry-After 5 beats RateLimit r=0;t=30, whose reset is the wait without it")
    void prefersRetryAfterOverIetfRateLimit() {
        HttpHeaders headers = headers("Retry-After", "5");
        headers.add("RateLimit", "\"default\";r=0;t=30");
        assertThat(resolve(ProviderDialect.GENERIC, headers, null))
            .isEqualTo(new RetryAfter(Duration.ofSeconds(5), RetryAfter.Source.RETRY_AFTER));
        headers.remove("Retry-After");
        assertThat(resolve(ProviderDialect.GENERIC, headers, null))
            .isEqualTo(new RetryAfter(Duration.ofSeconds(30), RetryAfter.Source.RESET_HEADER));
    }

    @Test
    @DisplayName("the body hint is the lowest-priority source")
    void fallsBackToTheBodyHint() {
        String body = "{\"error\":{\"message\":\"Rate limit reached. Please try again in 1.146s. Visit x\","
                + "\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}";
        assertThat(resolve(ProviderDialect.OPENAI, new HttpHeaders(), body))
            .isEqualTo(new RetryAfter(Duration.ofMillis(1146), RetryAfter.Source.BODY));
        HttpHeaders headers = headers("x-ratelimit-remaining-tokens", "0");
        headers.add("x-ratelimit-reset-tokens", "1.2s");
        assertThat(resolve(ProviderDialect.OPENAI, headers, body).source()).isEqualTo(RetryAfter.Source.RESET_HEADER);
    }

    @Test
    @DisplayName("OpenRouter's reset instant in the error body is the wait when no header gives one")
    void fallsBackToTheBodyResetInstant() {
        String body = "{\"error\":{\"message\":\"Rate limit exceeded\",\"code\":429,\"metadata\":{\"headers\":"
                + "{\"X-RateLimit-Reset\":\"1696004857000\"}}}}";
        assertThat(resolve(ProviderDialect.OPENAI, new HttpHeaders(), body))
            .isEqualTo(new RetryAfter(Duration.ofSeconds(60), RetryAfter.Source.BODY));
    }

    @Test
    @DisplayName("a bare x-ratelimit-reset of seconds is the server's wait when nothing more specific is present")
    void readsABareResetOfSeconds() {
        assertThat(resolve(ProviderDialect.ANTHROPIC, headers("X-RateLimit-Reset", "12"), null))
            .isEqualTo(new RetryAfter(Duration.ofSeconds(12), RetryAfter.Source.BARE_RESET));
        assertThat(resolve(ProviderDialect.OPENAI, headers("x-ratelimit-reset", "1.5"), null))
            .isEqualTo(new RetryAfter(Duration.ofMillis(1500), RetryAfter.Source.BARE_RESET));
        assertThat(resolve(ProviderDialect.GENERIC, headers("x-ratelimit-reset", "0"), null))
            .isEqualTo(new RetryAfter(Duration.ZERO, RetryAfter.Source.BARE_RESET));
    }

    @Test
    @DisplayName("every more specific source beats a bare x-ratelimit-reset")
    void prefersEveryOtherSourceOverABareReset() {
        HttpHeaders headers = headers("x-ratelimit-reset", "12");
        headers.add("retry-after", "3");
        assertThat(resolve(ProviderDialect.OPENAI, headers, null).source()).isEqualTo(RetryAfter.Source.RETRY_AFTER);
        headers.remove("retry-after");
        headers.add("x-ratelimit-remaining-tokens", "0");
        headers.add("x-ratelimit-reset-tokens", "7.66s");
        assertThat(resolve(ProviderDialect.OPENAI, headers, null))
            .isEqualTo(new RetryAfter(Duration.ofMillis(7660), RetryAfter.Source.RESET_HEADER));
        String body = "{\"error\":{\"message\":\"Please try again in 1.146s.\",\"code\":\"rate_limit_exceeded\"}}";
        assertThat(resolve(ProviderDialect.OPENAI, headers("x-ratelimit-reset", "12"), body).source())
            .isEqualTo(RetryAfter.Source.BODY);
    }

    @Test
    @DisplayName("a bare x-ratelimit-reset as a Go duration or an epoch instant in seconds or milliseconds is read")
    void readsABareResetAsADurationOrAnEpochInstant() {
        Instant now = this.clock.instant();
        assertThat(RetryAfter.parseBareReset("2m30s", now)).isEqualTo(Duration.ofSeconds(150));
        assertThat(RetryAfter.parseBareReset(Long.toString(now.getEpochSecond() + 40), now))
            .isEqualTo(Duration.ofSeconds(40));
        assertThat(RetryAfter.parseBareReset(Long.toString(now.toEpochMilli() + 2500), now))
            .isEqualTo(Duration.ofMillis(2500));
        assertThat(RetryAfter.parseBareReset(Long.toString(now.getEpochSecond() - 40), now)).isEqualTo(Duration.ZERO);
    }

    @ParameterizedTest
    @ValueSource(strings = { "-5", "", "soon", "6 minutes", "-1s", "1e3", "99999999999", "123456789012345",
            "2023-09-29T16:27:00Z", "Fri, 29 Sep 2023 16:26:57 GMT", "9999999999" })
    @DisplayName("a bare x-ratelimit-reset in any other form, or implausibly far, is ignored")
    void ignoresABareResetInOtherForms(String value) {
        assertThat(RetryAfter.parseBareReset(value, this.clock.instant())).isNull();
        assertThat(resolve(ProviderDialect.OPENAI, headers("x-ratelimit-reset", value), null)).isNull();
    }

    @Test
    void hasNoWaitWhenNothingSaysSo() {
        assertThat(resolve(ProviderDialect.ANTHROPIC, new HttpHeaders(), "<html></html>")).isNull();
    }

    private @Nullable Duration retryAfter(String value) {
        return RetryAfter.parseRetryAfter(value, this.clock.instant());
    }

    private @Nullable RetryAfter resolve(ProviderDialect dialect, HttpHeaders headers, @Nullable String body) {
        Instant now = this.clock.instant();
        RateLimitSnapshot snapshot = RateLimitHeaders.parse(dialect, headers::getOrEmpty, now);
        ProviderError error = (body != null) ? ProviderError.parse(body.getBytes(StandardCharsets.UTF_8)) : null;
        return RetryAfter.resolve(headers::getOrEmpty, snapshot, error, this.clock);
    }

    private static HttpHeaders headers(String name, String value) {
        HttpHeaders headers = new HttpHeaders();
        headers.add(name, value);
        return headers;
    }

    private static Headers view(HttpHeaders headers) {
        return headers::getOrEmpty;
    }

}
