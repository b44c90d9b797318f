package io.github.llmthrottle.provider;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class ProviderErrorTests {

    @Test
    void readsAnthropicRateLimitError() {
        ProviderError error = parse("""
                {"type":"error","error":{"type":"rate_limit_error","message":"Number of input tokens has exceeded \
                the per-minute rate limit."},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}""");
        assertThat(error.type()).isEqualTo("rate_limit_error");
        assertThat(error.code()).isNull();
        assertThat(error.message()).startsWith("Number of input tokens");
        assertThat(error.quotaExhausted()).isFalse();
        assertThat(error.retryDelay()).isNull();
    }

    @Test
    @DisplayName("Anthropic's spend cap (details.error_code enforced_spend_limit_reached) is an exhausted quota")
    void readsAnthropicSpendCap() {
        ProviderError error = parse(
                """
                        {"type":"error","error":{"type":"rate_limit_error","message":"You have reached your API usage \
                        limits: your organization has crossed its monthly API usage threshold, set based on your \
                        organization's API tier. You will regain access on 2026-09-01 at 00:00 UTC.",\
                        "details":{"error_code":"enforced_spend_limit_reached"}},"request_id":"req_018EeWyXxfu5pfWkrYcMdjWG"}""");
        assertThat(error.type()).isEqualTo("rate_limit_error");
        assertThat(error.code()).isEqualTo("enforced_spend_limit_reached");
        assertThat(error.quotaExhausted()).isTrue();
    }

    @Test
    @DisplayName("Anthropic's 400 for a user-set spend limit is an exhausted quota")
    void readsAnthropicUserSpendLimit() {
        ProviderError error = parse("""
                {"type":"error","error":{"type":"invalid_request_error","message":"You have reached your \
                specified API usage limits. You will regain access on 2026-10-01 at 00:00 UTC."}}""");
        assertThat(error.quotaExhausted()).isTrue();
    }

    @Test
    void readsAnthropicOverloaded() {
        ProviderError error = parse("""
                {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}""");
        assertThat(error.type()).isEqualTo("overloaded_error");
        assertThat(error.message()).isEqualTo("Overloaded");
    }

    @Test
    @DisplayName("OpenAI's tokens-per-minute 429 gives its type, its code and the wait of 1.146s hinted in the message")
    void readsOpenAiRateLimitWithHint() {
        ProviderError error = parse("""
                {"error":{"message":"Rate limit reached for gpt-4o-mini in project proj_x organization org-x on \
                tokens per min (TPM): Limit 50000, Used 47949, Requested 3006. Please try again in 1.146s. Visit \
                https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,\
                "code":"rate_limit_exceeded"}}""");
        assertThat(error.type()).isEqualTo("tokens");
        assertThat(error.code()).isEqualTo("rate_limit_exceeded");
        assertThat(error.retryDelay()).isEqualTo(Duration.ofMillis(1146));
        assertThat(error.quotaExhausted()).isFalse();
    }

    @Test
    @DisplayName("a wait hinted in milliseconds, or in minutes and seconds, is read from the message")
    void readsMillisecondHint() {
        assertThat(ProviderError.messageHint("Rate limit reached for requests. Please try again in 84ms."))
            .isEqualTo(Duration.ofMillis(84));
        assertThat(ProviderError.messageHint("Please try again in 1m30s.")).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    @DisplayName("Azure's wait hinted in words is read, and its code is the string \"429\"")
    void readsAzureHint() {
        ProviderError error = parse("""
                {"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation under Azure \
                OpenAI API version 2024-10-01-preview have exceeded token rate limit of your current AIServices S0 \
                pricing tier. Please retry after 37 seconds. Please go here: https://aka.ms/oai/quotaincrease"}}""");
        assertThat(error.code()).isEqualTo("429");
        assertThat(error.retryDelay()).isEqualTo(Duration.ofSeconds(37));
        assertThat(ProviderError.messageHint("Try again in 35 seconds.")).isEqualTo(Duration.ofSeconds(35));
        assertThat(ProviderError.messageHint("Please retry after 1 second")).isEqualTo(Duration.ofSeconds(1));
        assertThat(ProviderError.messageHint("Please retry after 2 minutes")).isEqualTo(Duration.ofMinutes(2));
        assertThat(ProviderError.messageHint("try again in 250 milliseconds")).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void findsNoHintWhereThereIsNone() {
        assertThat(ProviderError.messageHint("Please try again later.")).isNull();
        assertThat(ProviderError.messageHint("retry after a while")).isNull();
        assertThat(ProviderError.messageHint(null)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = { "insufficient_quota", "credit_balance_exhausted", "organization_spend_limit_exceeded",
            "project_spend_limit_exceeded", "organization_usage_limit_exceeded" })
    @DisplayName("OpenAI's quota and spend-limit codes mean an exhausted quota")
    void recognisesOpenAiQuotaCodes(String code) {
        ProviderError error = parse("{\"error\":{\"message\":\"You exceeded your current quota.\",\"type\":\"x\","
                + "\"param\":null,\"code\":\"" + code + "\"}}");
        assertThat(error.quotaExhausted()).isTrue();
    }

    @Test
    @DisplayName("an older insufficient_quota error with a null code is an exhausted quota too")
    void recognisesQuotaTypeWithNullCode() {
        ProviderError error = parse("""
                {"error":{"message":"You exceeded your current quota, please check your plan and billing details.",\
                "type":"insufficient_quota","param":null,"code":null}}""");
        assertThat(error.code()).isNull();
        assertThat(error.quotaExhausted()).isTrue();
    }

    @Test
    @DisplayName("OpenAI's Request too large (Requested > Limit) is an exhausted quota")
    void recognisesRequestTooLargeForTheLimit() {
        ProviderError error = parse("""
                {"error":{"message":"Request too large for gpt-4o in organization org-xxx on tokens per min (TPM): \
                Limit 30000, Requested 34307.","type":"tokens","code":"rate_limit_exceeded"}}""");
        assertThat(error.quotaExhausted()).isTrue();
    }

    @Test
    @DisplayName("slow_down is a rate limit, not an exhausted quota")
    void readsSlowDown() {
        ProviderError error = parse("""
                {"error":{"message":"Please slow down.","type":"rate_limit_error","code":"slow_down"}}""");
        assertThat(error.code()).isEqualTo("slow_down");
        assertThat(error.quotaExhausted()).isFalse();
    }

    @Test
    @DisplayName("Gemini's error body, a JSON array, is read")
    void readsGeminiArrayBody() {
        ProviderError error = parse("""
                [{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).",\
                "status":"RESOURCE_EXHAUSTED"}}]""");
        assertThat(error.type()).isEqualTo("RESOURCE_EXHAUSTED");
        assertThat(error.code()).isEqualTo("429");
        assertThat(error.quotaExhausted()).isFalse();
    }

    @Test
    @DisplayName("Gemini's RetryInfo retryDelay (19s, 3.700s) is the wait, and a per-minute quota is not exhausted")
    void readsGeminiRetryInfo() {
        assertThat(parse(gemini("19s", "GenerateContentInputTokensPerModelPerMinute-FreeTier")).retryDelay())
            .isEqualTo(Duration.ofSeconds(19));
        assertThat(parse(gemini("3.700s", "GenerateContentInputTokensPerModelPerMinute-FreeTier")).retryDelay())
            .isEqualTo(Duration.ofMillis(3700));
        assertThat(parse(gemini("3.700s", "GenerateContentInputTokensPerModelPerMinute-FreeTier")).quotaExhausted())
            .isFalse();
    }

    @Test
    @DisplayName("Gemini's QuotaFailure with a PerDay quotaId is an exhausted quota")
    void recognisesGeminiDailyQuota() {
        assertThat(parse(gemini("52758s", "GenerateRequestsPerDayPerProjectPerModel-FreeTier")).quotaExhausted())
            .isTrue();
    }

    @Test
    @DisplayName("OpenRouter's free-models-per-day is an exhausted quota resetting at the body's X-RateLimit-Reset")
    void readsOpenRouterDailyCap() {
        ProviderError error = parse("""
                {"error":{"message":"Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free \
                model requests per day","code":429,"metadata":{"headers":{"X-RateLimit-Limit":"50",\
                "X-RateLimit-Remaining":"0","X-RateLimit-Reset":"1788825600000"},\
                "limit_source":"openrouter_free_tier_daily"}}}""");
        assertThat(error.code()).isEqualTo("429");
        assertThat(error.resetAt()).isEqualTo(Instant.parse("2026-09-08T00:00:00Z"));
        assertThat(error.quotaExhausted()).isTrue();
    }

    @Test
    void readsOpenRouterUpstreamLimitAsARateLimit() {
        ProviderError error = parse("""
                {"error":{"message":"Provider returned error","code":429,"metadata":{"headers":\
                {"x-ratelimit-reset":1696004800000},"limit_source":"upstream_provider_shared_pool"}}}""");
        assertThat(error.resetAt()).isEqualTo(Instant.ofEpochMilli(1696004800000L));
        assertThat(error.quotaExhausted()).isFalse();
    }

    @Test
    @DisplayName("a Cloudflare 413 HTML page is an unknown error")
    void readsHtmlAsUnknown() {
        ProviderError error = ProviderError.parse("""
                <html><head><title>413 Request Entity Too Large</title></head><body><center><h1>413 Request Entity \
                Too Large</h1></center><hr><center>cloudflare</center></body></html>"""
            .getBytes(StandardCharsets.UTF_8), "text/html");
        assertThat(error).isEqualTo(ProviderError.UNKNOWN);
        assertThat(error.isUnknown()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = { "", "   ", "null", "42", "\"error\"", "{", "[1,2", "{\"error\":", "[]", "[1]", "{}",
            "{\"error\":null}", "{\"error\":[1]}", "plain text: please try again in 5s" })
    void readsAnythingElseAsUnknown(String body) {
        assertThat(parse(body).isUnknown()).isTrue();
    }

    @Test
    void readsAStringErrorAsTheMessage() {
        ProviderError error = parse("{\"error\":\"Too many requests, retry after 3 seconds\"}");
        assertThat(error.message()).isEqualTo("Too many requests, retry after 3 seconds");
        assertThat(error.retryDelay()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    @DisplayName("leading blank lines before the JSON (DeepSeek's keep-alive) are skipped")
    void skipsLeadingBlankLines() {
        assertThat(parse("\n\n\r\n  {\"error\":{\"message\":\"Insufficient Balance\",\"type\":\"unknown_error\"}}")
            .message()).isEqualTo("Insufficient Balance");
    }

    @Test
    void readsOnlyTheFirst64KiB() {
        String padding = " ".repeat(70 * 1024);
        assertThat(parse(padding + "{\"error\":{\"message\":\"late\"}}").isUnknown()).isTrue();
        String large = "{\"error\":{\"type\":\"rate_limit_error\",\"message\":\"" + "x".repeat(100 * 1024) + "\"}}";
        assertThat(parse(large).isUnknown()).isTrue();
    }

    @Test
    void survivesDeepNesting() {
        assertThat(parse("[".repeat(100_000)).isUnknown()).isTrue();
    }

    @Test
    void readsANullBody() {
        assertThat(ProviderError.parse(null).isUnknown()).isTrue();
    }

    @Property(tries = 300)
    void neverThrows(@ForAll byte[] body) {
        assertThat(ProviderError.parse(body)).isNotNull();
    }

    @Property(tries = 300)
    void neverThrowsOnJsonLikeText(@ForAll String text) {
        assertThat(parse("{\"error\":{\"message\":\"" + text + "\"}}")).isNotNull();
        assertThat(parse("[" + text)).isNotNull();
    }

    private static String gemini(String retryDelay, String quotaId) {
        return """
                {"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED",\
                "details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":\
                "generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"%s"}]},\
                {"@type":"type.googleapis.com/google.rpc.Help","links":[]},\
                {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"%s"}]}}""".formatted(quotaId,
                retryDelay);
    }

    private static ProviderError parse(String body) {
        return ProviderError.parse(body.getBytes(StandardCharsets.UTF_8), "application/json");
    }

}
