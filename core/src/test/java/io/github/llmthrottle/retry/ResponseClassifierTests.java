package io.github.llmthrottle.retry;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.github.llmthrottle.provider.Headers;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;

import static org.assertj.core.api.Assertions.assertThat;

class ResponseClassifierTests {

    private static final String ANTHROPIC_429 = """
            {"type":"error","error":{"type":"rate_limit_error","message":"Number of input tokens has exceeded the \
            per-minute rate limit."},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}""";

    private static final String OPENAI_TPM_429 = """
            {"error":{"message":"Rate limit reached for gpt-4o-mini in project proj_x organization org-x on tokens \
            per min (TPM): Limit 50000, Used 47949, Requested 3006. Please try again in 1.146s. Visit \
            https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,\
            "code":"rate_limit_exceeded"}}""";

    private final FakeClock clock = FakeClock.at("2023-09-29T16:26:37Z");

    private final ResponseClassifier anthropic = new ResponseClassifier(ProviderDialect.ANTHROPIC, this.clock);

    private final ResponseClassifier openAi = new ResponseClassifier(ProviderDialect.OPENAI, this.clock);

    private final ResponseClassifier generic = new ResponseClassifier(ProviderDialect.GENERIC, this.clock);

    @Test
    void successIsNotRetried() {
        Classification result = this.anthropic.classify(200,
                view(headers("anthropic-ratelimit-requests-remaining", "999")), "{}".getBytes(StandardCharsets.UTF_8));
        assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
        assertThat(result.retryable()).isFalse();
        assertThat(result.rateLimits().requestsRemaining()).isEqualTo(999L);
        assertThat(result.error()).isNull();
    }

    @Test
    @DisplayName("Anthropic's 429 rate_limit_error is retried after its retry-after of 23 s")
    void anthropicRateLimitIsRetriedAfterRetryAfter() {
        Classification result = this.anthropic.classify(429, view(headers("retry-after", "23")), bytes(ANTHROPIC_429));
        assertThat(result.outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(result.retryable()).isTrue();
        assertThat(result.serverWait()).isEqualTo(Duration.ofSeconds(23));
        assertThat(result.retryAfter().source()).isEqualTo(RetryAfter.Source.RETRY_AFTER);
        assertThat(result.reason()).isEqualTo("429");
        assertThat(result.error().type()).isEqualTo("rate_limit_error");
    }

    @Test
    @DisplayName("Anthropic 429 with retry-after 505 and x-should-retry true is retryable with a 505 s wait")
    void anthropicLongRetryAfterIsReported() {
        HttpHeaders headers = headers("retry-after", "505");
        headers.add("x-should-retry", "true");
        headers.add("anthropic-ratelimit-input-tokens-remaining", "0");
        headers.add("anthropic-ratelimit-input-tokens-reset", "2023-09-29T16:35:02Z");
        Classification result = this.anthropic.classify(429, headers::getOrEmpty, bytes(ANTHROPIC_429));
        assertThat(result.retryable()).isTrue();
        assertThat(result.serverWait()).isEqualTo(Duration.ofSeconds(505));
    }

    @Test
    @DisplayName("Anthropic's spend-cap 429 is not retried unless x-should-retry true says otherwise")
    void anthropicSpendCapIsNotRetried() {
        String body = """
                {"type":"error","error":{"type":"rate_limit_error","message":"You have reached your API usage \
                limits. You will regain access on 2026-09-01 at 00:00 UTC.","details":{"error_code":\
                "enforced_spend_limit_reached"}},"request_id":"req_018EeWyXxfu5pfWkrYcMdjWG"}""";
        Classification result = this.anthropic.classify(429, Headers.EMPTY, bytes(body));
        assertThat(result.outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
        assertThat(result.retryable()).isFalse();
        assertThat(result.serverWait()).isNull();
        Classification overridden = this.anthropic.classify(429, view(headers("x-should-retry", "true")), bytes(body));
        assertThat(overridden.outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
        assertThat(overridden.retryable()).isTrue();
    }

    @Test
    @DisplayName("Anthropic 400 for a user-set spend limit is not retried")
    void anthropicSpendLimit400IsNotRetried() {
        String body = """
                {"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified \
                API usage limits. You will regain access on 2026-10-01 at 00:00 UTC."}}""";
        Classification result = this.anthropic.classify(400, Headers.EMPTY, bytes(body));
        assertThat(result.outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
        assertThat(result.retryable()).isFalse();
    }

    @Test
    @DisplayName("Anthropic 529 without retry-after is retried with back-off")
    void anthropicOverloadedIsRetried() {
        Classification result = this.anthropic.classify(529, Headers.EMPTY,
                bytes("{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"));
        assertThat(result.outcome()).isEqualTo(Outcome.OVERLOADED);
        assertThat(result.retryable()).isTrue();
        assertThat(result.serverWait()).isNull();
        assertThat(result.reason()).isEqualTo("529");
        assertThat(result.outcome().metricTag()).isEqualTo("overloaded");
    }

    @Test
    @DisplayName("Anthropic's 529 with retry-after 10 is retried after 10 s")
    void anthropicOverloadedWithRetryAfter() {
        Classification result = this.anthropic.classify(529, view(headers("retry-after", "10")),
                bytes("{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"));
        assertThat(result.retryable()).isTrue();
        assertThat(result.serverWait()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    @DisplayName("Anthropic 500 api_error and 504 timeout_error are retried")
    void anthropicServerErrorsAreRetried() {
        Classification internal = this.anthropic.classify(500, Headers.EMPTY,
                bytes("{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}"));
        Classification timeout = this.anthropic.classify(504, Headers.EMPTY,
                bytes("{\"type\":\"error\",\"error\":{\"type\":\"timeout_error\",\"message\":\"timed out\"}}"));
        assertThat(internal.outcome()).isEqualTo(Outcome.SERVER_ERROR);
        assertThat(internal.retryable()).isTrue();
        assertThat(internal.reason()).isEqualTo("5xx");
        assertThat(timeout.outcome()).isEqualTo(Outcome.SERVER_ERROR);
        assertThat(timeout.retryable()).isTrue();
        assertThat(timeout.reason()).isEqualTo("5xx");
    }

    @Test
    @DisplayName("413 with a Cloudflare HTML body is classified by its status alone")
    void requestTooLargeIsNotRetriedWithoutReadingTheBody() {
        Classification result = this.anthropic.classify(413, view(headers("content-type", "text/html")),
                bytes("<html><body>413 Request Entity Too Large</body></html>"));
        assertThat(result.outcome()).isEqualTo(Outcome.CLIENT_ERROR);
        assertThat(result.retryable()).isFalse();
        assertThat(result.error()).isNull();
    }

    @ParameterizedTest
    @ValueSource(ints = { 400, 401, 403, 404, 413, 422 })
    @DisplayName("400, 401, 403, 404, 413 and 422 are not retried")
    void clientErrorsAreNotRetried(int status) {
        Classification result = this.anthropic.classify(status, Headers.EMPTY,
                bytes("{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"no\"}}"));
        assertThat(result.outcome()).isEqualTo(Outcome.CLIENT_ERROR);
        assertThat(result.retryable()).isFalse();
    }

    @Test
    @DisplayName("402 billing_error (Anthropic, DeepSeek, OpenRouter) is not retried")
    void paymentRequiredIsNotRetried() {
        Classification result = this.anthropic.classify(402, Headers.EMPTY,
                bytes("{\"type\":\"error\",\"error\":{\"type\":\"billing_error\",\"message\":\"Billing\"}}"));
        assertThat(result.outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
        assertThat(result.retryable()).isFalse();
        Classification deepSeek = this.openAi.classify(402, Headers.EMPTY,
                bytes("{\"error\":{\"message\":\"Insufficient Balance\",\"type\":\"unknown_error\"}}"));
        assertThat(deepSeek.retryable()).isFalse();
        Classification openRouter = this.openAi.classify(402, Headers.EMPTY,
                bytes("{\"error\":{\"code\":402,\"message\":\"This request requires more credits\"}}"));
        assertThat(openRouter.retryable()).isFalse();
    }

    @Test
    @DisplayName("409 conflict_error is retried")
    void conflictIsRetried() {
        Classification result = this.anthropic.classify(409, Headers.EMPTY, new byte[0]);
        assertThat(result.outcome()).isEqualTo(Outcome.CONFLICT);
        assertThat(result.retryable()).isTrue();
        assertThat(result.reason()).isEqualTo("409");
    }

    @Test
    @DisplayName("408 is retried")
    void requestTimeoutIsRetried() {
        Classification result = this.generic.classify(408, Headers.EMPTY, bytes("whatever"));
        assertThat(result.outcome()).isEqualTo(Outcome.TIMEOUT);
        assertThat(result.retryable()).isTrue();
        assertThat(result.reason()).isEqualTo("408");
    }

    @Test
    @DisplayName("400 with x-should-retry false is not retried")
    void shouldRetryFalseOn400() {
        Classification result = this.anthropic.classify(400, view(headers("x-should-retry", "false")), bytes("""
                {"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.1: \
                unexpected `tool_use_id`"},"request_id":"req_011CYHyk9NPsBYeGbC9LuDNK"}"""));
        assertThat(result.retryable()).isFalse();
    }

    @Test
    @DisplayName("400 with x-should-retry true is retried (the header beats the status)")
    void shouldRetryTrueOn400() {
        Classification result = this.anthropic.classify(400, view(headers("x-should-retry", "true")), new byte[0]);
        assertThat(result.outcome()).isEqualTo(Outcome.CLIENT_ERROR);
        assertThat(result.retryable()).isTrue();
        assertThat(result.reason()).isEqualTo("400");
    }

    @Test
    @DisplayName("503 with x-should-retry false is not retried")
    void shouldRetryFalseOn503() {
        assertThat(this.anthropic.classify(503, view(headers("x-should-retry", "false")), new byte[0]).retryable())
            .isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = { "True", "TRUE", "yes", "1", " true" })
    void onlyTheExactLowercaseHeaderCounts(String value) {
        assertThat(this.anthropic.classify(400, view(headers("x-should-retry", value)), new byte[0]).retryable())
            .isFalse();
        assertThat(this.anthropic.classify(503, view(headers("x-should-retry", value)), new byte[0]).retryable())
            .isTrue();
    }

    @Test
    @DisplayName("OpenAI's tokens-per-minute 429 with the reset header waits about 1.146 s")
    void openAiTokenRateLimitIsRetried() {
        HttpHeaders headers = headers("x-ratelimit-remaining-tokens", "0");
        headers.add("x-ratelimit-reset-tokens", "1.146s");
        Classification result = this.openAi.classify(429, headers::getOrEmpty, bytes(OPENAI_TPM_429));
        assertThat(result.outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(result.retryable()).isTrue();
        assertThat(result.serverWait()).isEqualTo(Duration.ofMillis(1146));
        assertThat(result.retryAfter().source()).isEqualTo(RetryAfter.Source.RESET_HEADER);
        Classification bodyOnly = this.openAi.classify(429, Headers.EMPTY, bytes(OPENAI_TPM_429));
        assertThat(bodyOnly.serverWait()).isEqualTo(Duration.ofMillis(1146));
        assertThat(bodyOnly.retryAfter().source()).isEqualTo(RetryAfter.Source.BODY);
    }

    @ParameterizedTest
    @ValueSource(strings = { "insufficient_quota", "credit_balance_exhausted", "organization_spend_limit_exceeded",
            "project_spend_limit_exceeded", "organization_usage_limit_exceeded" })
    @DisplayName("OpenAI quota and spend-limit 429s are not retried")
    void openAiQuotaIsNotRetried(String code) {
        String body = "{\"error\":{\"message\":\"You exceeded your current quota.\",\"type\":\"insufficient_quota\","
                + "\"param\":null,\"code\":\"" + code + "\"}}";
        Classification result = this.openAi.classify(429, Headers.EMPTY, bytes(body));
        assertThat(result.outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
        assertThat(result.retryable()).isFalse();
        assertThat(result.outcome().metricTag()).isEqualTo("client_error");
    }

    @Test
    @DisplayName("OpenAI Request too large (Requested > Limit) is not retried")
    void openAiRequestLargerThanTheLimitIsNotRetried() {
        Classification result = this.openAi.classify(429, Headers.EMPTY, bytes("""
                {"error":{"message":"Request too large for gpt-4o in organization org-xxx on tokens per min (TPM): \
                Limit 30000, Requested 34307.","type":"tokens","code":"rate_limit_exceeded"}}"""));
        assertThat(result.retryable()).isFalse();
    }

    @Test
    @DisplayName("OpenAI slow_down 429 is retried, honouring Retry-After")
    void openAiSlowDownIsRetried() {
        Classification result = this.openAi.classify(429, view(headers("retry-after", "3")), bytes(
                "{\"error\":{\"message\":\"Please slow down.\",\"type\":\"rate_limit_error\",\"code\":\"slow_down\"}}"));
        assertThat(result.retryable()).isTrue();
        assertThat(result.serverWait()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    @DisplayName("OpenAI 503 server_is_overloaded is retried as overloaded")
    void openAiOverloadedIsRetried() {
        Classification result = this.openAi.classify(503, Headers.EMPTY, bytes("""
                {"error":{"message":"The server is overloaded","type":"service_unavailable_error",\
                "code":"server_is_overloaded"}}"""));
        assertThat(result.outcome()).isEqualTo(Outcome.OVERLOADED);
        assertThat(result.retryable()).isTrue();
        assertThat(result.reason()).isEqualTo("503");
        Classification legacy = this.openAi.classify(503, Headers.EMPTY,
                bytes("{\"error\":{\"message\":\"The engine is currently overloaded, please try again later\"}}"));
        assertThat(legacy.outcome()).isEqualTo(Outcome.OVERLOADED);
    }

    @Test
    @DisplayName("Ollama's 503 server busy is retried as overloaded, its 429 as a rate limit")
    void ollamaServerBusyIsRetriedAsOverloaded() {
        ResponseClassifier ollama = new ResponseClassifier(ProviderDialect.OLLAMA, this.clock);
        Classification busy = ollama.classify(503, Headers.EMPTY,
                bytes("{\"error\":\"server busy, please try again.  maximum pending requests exceeded\"}"));
        assertThat(busy.outcome()).isEqualTo(Outcome.OVERLOADED);
        assertThat(busy.retryable()).isTrue();
        Classification limited = ollama.classify(429, view(headers("retry-after", "7")),
                bytes("{\"error\":\"too many requests\"}"));
        assertThat(limited.outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(limited.retryable()).isTrue();
        assertThat(limited.serverWait()).isEqualTo(Duration.ofSeconds(7));
        Classification unavailable = ollama.classify(503, Headers.EMPTY, bytes("{\"error\":\"model is loading\"}"));
        assertThat(unavailable.outcome()).isEqualTo(Outcome.SERVER_ERROR);
        assertThat(unavailable.retryable()).isTrue();
    }

    @Test
    @DisplayName("the classifier reports the wait; the engine decides whether it is too long")
    void reportsLongWaitsAsRetryable() {
        assertThat(this.openAi.classify(429, view(headers("retry-after", "120")), new byte[0]).serverWait())
            .isEqualTo(Duration.ofSeconds(120));
        assertThat(this.openAi.classify(429, view(headers("retry-after", "121")), new byte[0]).serverWait())
            .isEqualTo(Duration.ofSeconds(121));
        assertThat(this.openAi.classify(429, view(headers("retry-after-ms", "120001")), new byte[0]).serverWait())
            .isEqualTo(Duration.ofMillis(120_001));
    }

    @Test
    @DisplayName("400 with an out-of-range Retry-After date is a plain, non-retryable 400")
    void outOfRangeDateDoesNotMaskTheStatus() {
        Classification result = this.openAi.classify(400,
                view(headers("retry-after", "Fri, 29 Sep 100000 16:26:57 GMT")),
                bytes("{\"error\":{\"message\":\"bad\",\"type\":\"invalid_request_error\"}}"));
        assertThat(result.outcome()).isEqualTo(Outcome.CLIENT_ERROR);
        assertThat(result.retryable()).isFalse();
        assertThat(result.serverWait()).isNull();
    }

    @Test
    @DisplayName("Groq 429, Retry-After 2 beats the exhausted token reset 7.66s")
    void groqRetryAfterBeatsReset() {
        HttpHeaders headers = headers("retry-after", "2");
        headers.add("x-ratelimit-remaining-tokens", "0");
        headers.add("x-ratelimit-reset-tokens", "7.66s");
        Classification result = this.openAi.classify(429, headers::getOrEmpty, bytes("""
                {"error":{"message":"Rate limit reached for model gemma2-9b-it on tokens per minute (TPM): \
                Limit 15000, Used 11972, Requested 4351. Please try again in 5.289s.","type":"tokens",\
                "code":"rate_limit_exceeded"}}"""));
        assertThat(result.retryable()).isTrue();
        assertThat(result.serverWait()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    @DisplayName("Groq daily request budget exhausted: the wait is the 179.56 s reset")
    void groqDailyBudgetWaitsForTheReset() {
        HttpHeaders headers = headers("x-ratelimit-remaining-requests", "0");
        headers.add("x-ratelimit-reset-requests", "2m59.56s");
        Classification result = this.openAi.classify(429, headers::getOrEmpty, new byte[0]);
        assertThat(result.retryable()).isTrue();
        assertThat(result.serverWait()).isEqualTo(Duration.ofMillis(179_560));
    }

    @Test
    @DisplayName("Together 503 and dynamic 429s are retried with back-off")
    void togetherIsRetriedWithBackOff() {
        assertThat(this.openAi.classify(503, Headers.EMPTY, new byte[0]).retryable()).isTrue();
        Classification result = this.openAi.classify(429, Headers.EMPTY,
                bytes("{\"error\":{\"message\":\"rate limited\",\"type\":\"dynamic_request_limited\"}}"));
        assertThat(result.retryable()).isTrue();
        assertThat(result.serverWait()).isNull();
    }

    @Test
    @DisplayName("OpenRouter free-models-per-day is not retried; the wait says when it resets")
    void openRouterDailyCapIsNotRetried() {
        FakeClock dayBefore = FakeClock.at("2026-09-07T12:00:00Z");
        Classification result = new ResponseClassifier(ProviderDialect.OPENAI, dayBefore)
            .classify(429, Headers.EMPTY, bytes("""
                    {"error":{"message":"Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free \
                    model requests per day","code":429,"metadata":{"headers":{"X-RateLimit-Limit":"50",\
                    "X-RateLimit-Remaining":"0","X-RateLimit-Reset":"1788825600000"},\
                    "limit_source":"openrouter_free_tier_daily"}}}"""));
        assertThat(result.outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
        assertThat(result.retryable()).isFalse();
        assertThat(result.serverWait()).isEqualTo(Duration.ofHours(12));
    }

    @Test
    @DisplayName("Gemini array 429 body is retried without throwing, RetryInfo delay as the wait")
    void geminiArrayBodyIsRetried() {
        Classification plain = this.openAi.classify(429, Headers.EMPTY, bytes("""
                [{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).",\
                "status":"RESOURCE_EXHAUSTED"}}]"""));
        assertThat(plain.outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(plain.retryable()).isTrue();
        assertThat(plain.serverWait()).isNull();
        Classification withRetryInfo = this.openAi.classify(429, Headers.EMPTY,
                bytes(gemini("GenerateContentInputTokensPerModelPerMinute-FreeTier")));
        assertThat(withRetryInfo.retryable()).isTrue();
        assertThat(withRetryInfo.serverWait()).isEqualTo(Duration.ofSeconds(19));
    }

    @Test
    @DisplayName("Gemini 429 with a PerDay quotaId is not retried")
    void geminiDailyQuotaIsNotRetried() {
        Classification result = this.openAi.classify(429, Headers.EMPTY,
                bytes(gemini("GenerateRequestsPerDayPerProjectPerModel-FreeTier")));
        assertThat(result.outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
        assertThat(result.retryable()).isFalse();
    }

    @Test
    @DisplayName("Azure's 429 with retry-after-ms 3000 is retried after 3 s, not the 37 s its message hints")
    void azureRetryAfterMs() {
        Classification result = this.openAi.classify(429, view(headers("retry-after-ms", "3000")), bytes("""
                {"error":{"code":"429","message":"Requests ... have exceeded token rate limit. Please retry after \
                37 seconds."}}"""));
        assertThat(result.retryable()).isTrue();
        assertThat(result.serverWait()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    @DisplayName("Azure 503 with a Retry-After date in the past means retry now")
    void azurePastDateMeansNow() {
        Classification result = this.openAi.classify(503, view(headers("retry-after", "Fri, 29 Sep 2023 16:20:00 GMT")),
                new byte[0]);
        assertThat(result.retryable()).isTrue();
        assertThat(result.serverWait()).isEqualTo(Duration.ZERO);
    }

    @Test
    @DisplayName("Retry-After 5 beats RateLimit r=0;t=30")
    void retryAfterBeatsIetfRateLimit() {
        HttpHeaders headers = headers("Retry-After", "5");
        headers.add("RateLimit", "\"default\";r=0;t=30");
        Classification result = this.generic.classify(429, headers::getOrEmpty, new byte[0]);
        assertThat(result.serverWait()).isEqualTo(Duration.ofSeconds(5));
        assertThat(result.rateLimits().requestsRemaining()).isZero();
    }

    @Test
    @DisplayName("Anthropic acceleration-limit 429 with headroom in every header still honours retry-after")
    void accelerationLimitHonoursRetryAfter() {
        HttpHeaders headers = headers("retry-after", "7");
        headers.add("anthropic-ratelimit-requests-remaining", "48");
        headers.add("anthropic-ratelimit-input-tokens-remaining", "20000");
        headers.add("anthropic-ratelimit-output-tokens-remaining", "8000");
        Classification result = this.anthropic.classify(429, headers::getOrEmpty, bytes(ANTHROPIC_429));
        assertThat(result.retryable()).isTrue();
        assertThat(result.serverWait()).isEqualTo(Duration.ofSeconds(7));
    }

    @ParameterizedTest
    @ValueSource(ints = { 500, 502, 503, 504, 529, 599 })
    void serverErrorsAreRetried(int status) {
        assertThat(this.generic.classify(status, Headers.EMPTY, null).retryable()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(ints = { 501, 505 })
    void serverErrorsThatCannotChangeAreNotRetried(int status) {
        assertThat(this.generic.classify(status, Headers.EMPTY, null).retryable()).isFalse();
    }

    @Test
    void survivesAMalformedContentType() {
        Classification result = this.anthropic.classify(429, view(headers("content-type", "not a / media type;;")),
                bytes(ANTHROPIC_429));
        assertThat(result.retryable()).isTrue();
        assertThat(result.error().type()).isEqualTo("rate_limit_error");
    }

    @Test
    @DisplayName("connection refused, reset and read timeouts are retryable I/O errors")
    void ioErrorsAreRetried() {
        for (IOException failure : new IOException[] { new ConnectException("Connection refused"),
                new SocketException("Connection reset"), new SocketTimeoutException("Read timed out"),
                new HttpTimeoutException("request timed out") }) {
            Classification result = this.anthropic.classify(failure);
            assertThat(result.outcome()).isEqualTo(Outcome.IO_ERROR);
            assertThat(result.retryable()).isTrue();
            assertThat(result.reason()).isEqualTo("io");
            assertThat(result.status()).isZero();
            assertThat(result.outcome().metricTag()).isEqualTo("io_error");
        }
    }

    @Test
    void ioErrorOnAnInterruptedThreadIsNotRetried() {
        Thread.currentThread().interrupt();
        try {
            assertThat(this.anthropic.classify(new IOException("Request was interrupted")).retryable()).isFalse();
        }
        finally {
            Thread.interrupted();
        }
    }

    private static String gemini(String quotaId) {
        return """
                {"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED",\
                "details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"%s"}]},\
                {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"19s"}]}}""".formatted(quotaId);
    }

    private static HttpHeaders headers(String name, String value) {
        HttpHeaders headers = new HttpHeaders();
        headers.add(name, value);
        return headers;
    }

    private static byte[] bytes(String body) {
        return body.getBytes(StandardCharsets.UTF_8);
    }

    private static Headers view(HttpHeaders headers) {
        return headers::getOrEmpty;
    }

}
