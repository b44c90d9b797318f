package io.github.llmthrottle.provider;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitHeadersTests {

    private static final Instant NOW = Instant.parse("2023-09-29T16:26:37Z");

    @Test
    @DisplayName("every Anthropic rate-limit header of a real 200 response is read")
    void readsAnthropicHeaders() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("anthropic-ratelimit-input-tokens-limit", "80000");
        headers.add("anthropic-ratelimit-input-tokens-remaining", "80000");
        headers.add("anthropic-ratelimit-input-tokens-reset", "2025-08-21T12:40:59Z");
        headers.add("anthropic-ratelimit-output-tokens-limit", "16000");
        headers.add("anthropic-ratelimit-output-tokens-remaining", "16000");
        headers.add("anthropic-ratelimit-output-tokens-reset", "2025-08-21T12:41:00Z");
        headers.add("anthropic-ratelimit-requests-limit", "1000");
        headers.add("anthropic-ratelimit-requests-remaining", "999");
        headers.add("anthropic-ratelimit-requests-reset", "2025-08-21T12:40:59Z");
        headers.add("anthropic-ratelimit-tokens-limit", "96000");
        headers.add("anthropic-ratelimit-tokens-remaining", "96000");
        headers.add("anthropic-ratelimit-tokens-reset", "2025-08-21T12:40:59Z");
        headers.add("request-id", "req_011CSLsW7mFqvHHnzrKdKjAE");
        RateLimitSnapshot snapshot = RateLimitHeaders.parse(ProviderDialect.ANTHROPIC, headers::getOrEmpty, NOW);
        assertThat(snapshot).isEqualTo(new RateLimitSnapshot(1000L, 999L, Instant.parse("2025-08-21T12:40:59Z"), 80000L,
                80000L, Instant.parse("2025-08-21T12:40:59Z"), 16000L, 16000L, Instant.parse("2025-08-21T12:41:00Z"),
                96000L, 96000L, Instant.parse("2025-08-21T12:40:59Z"), NOW));
    }

    @Test
    void readsAnthropicResetsWithAnOffset() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("anthropic-ratelimit-requests-reset", "2025-08-21T14:40:59+02:00");
        assertThat(RateLimitHeaders.parse(ProviderDialect.ANTHROPIC, headers::getOrEmpty, NOW).requestsReset())
            .isEqualTo("2025-08-21T12:40:59Z");
    }

    @Test
    void readsFractionalSecondsAndRejectsImpossibleDatesWithoutThrowing() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("anthropic-ratelimit-requests-reset", "2025-08-21T12:40:59.250Z");
        headers.add("anthropic-ratelimit-input-tokens-reset", "2025-02-30T12:00:00Z");
        headers.add("anthropic-ratelimit-output-tokens-reset", "2025-08-21T25:00:00Z");
        headers.add("anthropic-ratelimit-tokens-reset", "2025-0a-21T12:40:59Z");
        RateLimitSnapshot snapshot = RateLimitHeaders.parse(ProviderDialect.ANTHROPIC, headers::getOrEmpty, NOW);
        assertThat(snapshot.requestsReset()).isEqualTo("2025-08-21T12:40:59.250Z");
        assertThat(snapshot.inputTokensReset()).isNull();
        assertThat(snapshot.outputTokensReset()).isNull();
        assertThat(snapshot.tokensReset()).isNull();
    }

    @Test
    void toleratesTheUnifiedFamilyWithEpochSecondResets() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("anthropic-ratelimit-unified-status", "allowed");
        headers.add("anthropic-ratelimit-unified-reset", "1696004857");
        headers.add("anthropic-ratelimit-unified-5h-utilization", "0.42");
        headers.add("anthropic-ratelimit-requests-reset", "1696004857");
        RateLimitSnapshot snapshot = RateLimitHeaders.parse(ProviderDialect.ANTHROPIC, headers::getOrEmpty, NOW);
        assertThat(snapshot.requestsReset()).isEqualTo(NOW.plusSeconds(60));
        assertThat(snapshot.tokensReset()).isNull();
    }

    @Test
    @DisplayName("OpenAI's headers are read, their resets measured from the receive time")
    void readsOpenAiHeaders() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("x-ratelimit-limit-requests", "60");
        headers.add("x-ratelimit-limit-tokens", "150000");
        headers.add("x-ratelimit-remaining-requests", "59");
        headers.add("x-ratelimit-remaining-tokens", "149984");
        headers.add("x-ratelimit-reset-requests", "1s");
        headers.add("x-ratelimit-reset-tokens", "6m0s");
        RateLimitSnapshot snapshot = RateLimitHeaders.parse(ProviderDialect.OPENAI, headers::getOrEmpty, NOW);
        assertThat(snapshot).isEqualTo(new RateLimitSnapshot(60L, 59L, NOW.plusSeconds(1), null, null, null, null, null,
                null, 150000L, 149984L, NOW.plusSeconds(360), NOW));
    }

    @Test
    @DisplayName("millisecond resets are read and headers with unknown suffixes such as _usage_based are ignored")
    void ignoresUnknownSuffixes() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("x-ratelimit-limit-requests", "5000");
        headers.add("x-ratelimit-limit-tokens", "160000");
        headers.add("x-ratelimit-limit-tokens_usage_based", "160000");
        headers.add("x-ratelimit-remaining-requests", "4999");
        headers.add("x-ratelimit-remaining-tokens", "159976");
        headers.add("x-ratelimit-remaining-tokens_usage_based", "159976");
        headers.add("x-ratelimit-reset-requests", "12ms");
        headers.add("x-ratelimit-reset-tokens", "9ms");
        headers.add("x-ratelimit-reset-tokens_usage_based", "9ms");
        RateLimitSnapshot snapshot = RateLimitHeaders.parse(ProviderDialect.OPENAI, headers::getOrEmpty, NOW);
        assertThat(snapshot.requestsReset()).isEqualTo(NOW.plusMillis(12));
        assertThat(snapshot.tokensReset()).isEqualTo(NOW.plusMillis(9));
        assertThat(snapshot.tokensLimit()).isEqualTo(160000L);
        assertThat(snapshot.tokensRemaining()).isEqualTo(159976L);
    }

    @Test
    @DisplayName("Groq's headers are read as given, though its request headers count per day, which they do not say")
    void readsGroqHeaders() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("x-ratelimit-limit-requests", "14400");
        headers.add("x-ratelimit-limit-tokens", "18000");
        headers.add("x-ratelimit-remaining-requests", "14370");
        headers.add("x-ratelimit-remaining-tokens", "17997");
        headers.add("x-ratelimit-reset-requests", "2m59.56s");
        headers.add("x-ratelimit-reset-tokens", "7.66s");
        RateLimitSnapshot snapshot = RateLimitHeaders.parse(ProviderDialect.OPENAI, headers::getOrEmpty, NOW);
        assertThat(snapshot.requestsLimit()).isEqualTo(14400L);
        assertThat(snapshot.requestsReset()).isEqualTo(NOW.plusMillis(179_560));
        assertThat(snapshot.tokensReset()).isEqualTo(NOW.plusMillis(7_660));
    }

    @Test
    @DisplayName("Azure's bare-number reset means seconds")
    void readsAzureBareSecondReset() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("x-ratelimit-remaining-tokens", "0");
        headers.add("x-ratelimit-reset-tokens", "64");
        RateLimitSnapshot snapshot = RateLimitHeaders.parse(ProviderDialect.OPENAI, headers::getOrEmpty, NOW);
        assertThat(snapshot.tokensReset()).isEqualTo(NOW.plusSeconds(64));
    }

    @Test
    @DisplayName("Azure's -1 / -1 / 0 means unknown")
    void treatsMinusOneAsUnknown() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("x-ratelimit-limit-tokens", "-1");
        headers.add("x-ratelimit-remaining-tokens", "-1");
        headers.add("x-ratelimit-reset-tokens", "0");
        RateLimitSnapshot snapshot = RateLimitHeaders.parse(ProviderDialect.OPENAI, headers::getOrEmpty, NOW);
        assertThat(snapshot.isEmpty()).isTrue();
    }

    @Test
    @DisplayName("a negative remaining count means exhausted")
    void treatsNegativeRemainingAsExhausted() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("x-ratelimit-remaining-tokens", "-27689");
        assertThat(RateLimitHeaders.parse(ProviderDialect.OPENAI, headers::getOrEmpty, NOW).tokensRemaining()).isZero();
    }

    @Test
    @DisplayName("Together's per-second headers are not taken for per-minute limits")
    void ignoresTogetherPerSecondHeaders() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("x-ratelimit-limit", "10");
        headers.add("x-ratelimit-remaining", "9");
        headers.add("x-ratelimit-reset", "1");
        headers.add("x-tokenlimit-limit", "2000");
        headers.add("x-tokenlimit-remaining", "1990");
        assertThat(RateLimitHeaders.parse(ProviderDialect.OPENAI, headers::getOrEmpty, NOW).isEmpty()).isTrue();
    }

    @Test
    void openAiIgnoresAnthropicsHeadersAndGenericReadsNeither() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("x-ratelimit-remaining-requests", "5");
        headers.add("anthropic-ratelimit-requests-remaining", "3");
        assertThat(RateLimitHeaders.parse(ProviderDialect.ANTHROPIC, headers::getOrEmpty, NOW).requestsRemaining())
            .isEqualTo(3L);
        assertThat(RateLimitHeaders.parse(ProviderDialect.OPENAI, headers::getOrEmpty, NOW).requestsRemaining())
            .isEqualTo(5L);
        assertThat(RateLimitHeaders.parse(ProviderDialect.GENERIC, headers::getOrEmpty, NOW).isEmpty()).isTrue();
    }

    @Test
    @DisplayName("Ollama has no headers of its own: only the standard ones are read")
    void ollamaReadsOnlyTheStandardHeaders() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("x-ratelimit-remaining-requests", "5");
        headers.add("anthropic-ratelimit-requests-remaining", "3");
        assertThat(RateLimitHeaders.parse(ProviderDialect.OLLAMA, headers::getOrEmpty, NOW).isEmpty()).isTrue();
        headers.add("RateLimit", "\"default\";r=50;t=30");
        assertThat(RateLimitHeaders.parse(ProviderDialect.OLLAMA, headers::getOrEmpty, NOW).requestsRemaining())
            .isEqualTo(50L);
    }

    @Test
    @DisplayName("IETF RateLimit fills the request dimension of a generic API")
    void readsIetfRateLimitForGeneric() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("RateLimit", "\"default\";r=50;t=30");
        headers.add("RateLimit-Policy", "\"default\";q=100;w=60");
        RateLimitSnapshot snapshot = RateLimitHeaders.parse(ProviderDialect.GENERIC, headers::getOrEmpty, NOW);
        assertThat(snapshot.requestsRemaining()).isEqualTo(50L);
        assertThat(snapshot.requestsReset()).isEqualTo(NOW.plusSeconds(30));
        assertThat(snapshot.requestsLimit()).isEqualTo(100L);
    }

    @Test
    @DisplayName("a limit is only taken from a per-minute policy; the tightest policy wins")
    void takesTheTightestPolicyAndOnlyPerMinuteLimits() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("RateLimit-Policy", "\"burst\";q=100;w=60,\"daily\";q=1000;w=86400");
        headers.add("RateLimit", "\"burst\";r=40;t=10, \"daily\";r=5;t=3600");
        RateLimitSnapshot snapshot = RateLimitHeaders.parse(ProviderDialect.GENERIC, headers::getOrEmpty, NOW);
        assertThat(snapshot.requestsRemaining()).isEqualTo(5L);
        assertThat(snapshot.requestsReset()).isEqualTo(NOW.plusSeconds(3600));
        assertThat(snapshot.requestsLimit()).isNull();
    }

    @Test
    @DisplayName("a malformed RateLimit field is ignored whole")
    void ignoresMalformedIetfField() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("RateLimit", "default;r=abc");
        assertThat(RateLimitHeaders.parse(ProviderDialect.GENERIC, headers::getOrEmpty, NOW).isEmpty()).isTrue();
    }

    @Test
    void readsOlderDraftSeparateHeaders() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("RateLimit-Limit", "10");
        headers.add("RateLimit-Remaining", "0");
        headers.add("RateLimit-Reset", "4");
        RateLimitSnapshot snapshot = RateLimitHeaders.parse(ProviderDialect.GENERIC, headers::getOrEmpty, NOW);
        assertThat(snapshot.requestsRemaining()).isZero();
        assertThat(snapshot.requestsReset()).isEqualTo(NOW.plusSeconds(4));
    }

    @Test
    void leavesUnreadableValuesNull() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("anthropic-ratelimit-requests-limit", "lots");
        headers.add("anthropic-ratelimit-requests-remaining", "99999999999999999999999999");
        headers.add("anthropic-ratelimit-requests-reset", "tomorrow");
        headers.add("anthropic-ratelimit-tokens-remaining", "96000.0");
        RateLimitSnapshot snapshot = RateLimitHeaders.parse(ProviderDialect.ANTHROPIC, headers::getOrEmpty, NOW);
        assertThat(snapshot.requestsLimit()).isNull();
        assertThat(snapshot.requestsRemaining()).isNull();
        assertThat(snapshot.requestsReset()).isNull();
        assertThat(snapshot.tokensRemaining()).isEqualTo(96000L);
    }

    @Test
    @DisplayName("a relay's x-ratelimit-* headers beside Anthropic's are read, and the lower remaining wins in each dimension")
    void readsARelaysHeadersBesideAnthropicsAndTakesTheLowerRemaining() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("anthropic-ratelimit-requests-limit", "4000");
        headers.add("anthropic-ratelimit-requests-remaining", "3999");
        headers.add("anthropic-ratelimit-requests-reset", "2023-09-29T16:26:38Z");
        headers.add("x-ratelimit-limit-requests", "60");
        headers.add("x-ratelimit-remaining-requests", "12");
        headers.add("x-ratelimit-reset-requests", "48s");
        headers.add("anthropic-ratelimit-input-tokens-limit", "400000");
        headers.add("anthropic-ratelimit-input-tokens-remaining", "20000");
        headers.add("anthropic-ratelimit-input-tokens-reset", "2023-09-29T16:27:00Z");
        headers.add("x-ratelimit-limit-input-tokens", "100000");
        headers.add("x-ratelimit-remaining-input-tokens", "90000");
        headers.add("x-ratelimit-reset-input-tokens", "6");
        headers.add("anthropic-ratelimit-output-tokens-limit", "80000");
        headers.add("anthropic-ratelimit-output-tokens-remaining", "80000");
        headers.add("x-ratelimit-remaining-output-tokens", "5000");
        headers.add("x-ratelimit-reset-output-tokens", "2023-09-29T16:26:40Z");
        headers.add("anthropic-ratelimit-tokens-limit", "480000");
        headers.add("anthropic-ratelimit-tokens-remaining", "100000");
        headers.add("x-ratelimit-limit-tokens", "50000");
        headers.add("x-ratelimit-remaining-tokens", "-3");
        headers.add("x-ratelimit-reset-tokens", "1m0s");
        RateLimitSnapshot snapshot = RateLimitHeaders.parse(ProviderDialect.ANTHROPIC, headers::getOrEmpty, NOW);
        assertThat(snapshot).isEqualTo(new RateLimitSnapshot(60L, 12L, NOW.plusSeconds(48), 400000L, 20000L,
                Instant.parse("2023-09-29T16:27:00Z"), null, 5000L, Instant.parse("2023-09-29T16:26:40Z"), 50000L, 0L,
                NOW.plusSeconds(60), NOW));
    }

    @Test
    @DisplayName("a relay's headers alone fill Anthropic's dimensions, and a reset in epoch seconds is an instant")
    void readsARelaysHeadersAloneForAnthropic() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("x-ratelimit-limit-requests", "60");
        headers.add("x-ratelimit-remaining-requests", "59");
        headers.add("x-ratelimit-reset-requests", Long.toString(NOW.getEpochSecond() + 30));
        headers.add("anthropic-ratelimit-tokens-limit", "1000");
        headers.add("x-ratelimit-limit-tokens", "500");
        RateLimitSnapshot snapshot = RateLimitHeaders.parse(ProviderDialect.ANTHROPIC, headers::getOrEmpty, NOW);
        assertThat(snapshot)
            .extracting(RateLimitSnapshot::requestsLimit, RateLimitSnapshot::requestsRemaining,
                    RateLimitSnapshot::requestsReset, RateLimitSnapshot::tokensLimit)
            .containsExactly(60L, 59L, NOW.plusSeconds(30), 500L);
    }

    @Test
    @DisplayName("a relay's headers beside Anthropic's that report more headroom change nothing")
    void keepsAnthropicsDimensionWhenTheRelayHasMoreHeadroom() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("anthropic-ratelimit-requests-limit", "50");
        headers.add("anthropic-ratelimit-requests-remaining", "3");
        headers.add("anthropic-ratelimit-requests-reset", "2023-09-29T16:27:00Z");
        headers.add("x-ratelimit-limit-requests", "1000");
        headers.add("x-ratelimit-remaining-requests", "999");
        headers.add("x-ratelimit-reset-requests", "1s");
        RateLimitSnapshot snapshot = RateLimitHeaders.parse(ProviderDialect.ANTHROPIC, headers::getOrEmpty, NOW);
        assertThat(snapshot)
            .extracting(RateLimitSnapshot::requestsLimit, RateLimitSnapshot::requestsRemaining,
                    RateLimitSnapshot::requestsReset)
            .containsExactly(50L, 3L, Instant.parse("2023-09-29T16:27:00Z"));
    }

    @Property(tries = 300)
    void neverThrowsOnAnyHeaderValue(@ForAll String value) {
        HttpHeaders headers = new HttpHeaders();
        String safe = new String(value.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.ISO_8859_1);
        for (String name : List.of("anthropic-ratelimit-requests-limit", "anthropic-ratelimit-tokens-reset",
                "x-ratelimit-reset-tokens", "x-ratelimit-remaining-requests", "RateLimit", "RateLimit-Policy",
                "RateLimit-Remaining", "RateLimit-Reset")) {
            headers.add(name, safe);
        }
        for (ProviderDialect dialect : ProviderDialect.values()) {
            assertThat(RateLimitHeaders.parse(dialect, headers::getOrEmpty, NOW).observedAt()).isEqualTo(NOW);
        }
    }

    @Test
    void handlesHugeResets() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("x-ratelimit-reset-tokens", "2562047h");
        headers.add("x-ratelimit-reset-requests", "99999999999999");
        RateLimitSnapshot snapshot = RateLimitHeaders.parse(ProviderDialect.OPENAI, headers::getOrEmpty, NOW);
        assertThat(snapshot.tokensReset()).isEqualTo(NOW.plus(Duration.ofHours(2562047)));
        assertThat(snapshot.requestsReset()).isNull();
    }

}
