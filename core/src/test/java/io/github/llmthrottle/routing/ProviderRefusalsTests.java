package io.github.llmthrottle.routing;

import io.github.llmthrottle.FallbackOn;
import io.github.llmthrottle.client.ProviderResponseException;
import org.junit.jupiter.api.Test;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Provider refusals read from the error bodies of Anthropic and OpenAI, and from the
 * exceptions the HTTP libraries wrap them in.
 */
class ProviderRefusalsTests {

    private static final String ANTHROPIC_TOO_LONG = """
            {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: \
            215000 tokens > 200000 maximum"},"request_id":"req_011"}""";

    private static final String OPENAI_TOO_LONG = """
            {"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages \
            resulted in 130412 tokens. Please reduce the length of the messages.","type":"invalid_request_error",\
            "param":"messages","code":"context_length_exceeded"}}""";

    private static final String OPENAI_CONTENT_POLICY = """
            {"error":{"message":"Your request was rejected as a result of our safety system.",\
            "type":"invalid_request_error","param":null,"code":"content_policy_violation"}}""";

    private static final String AZURE_CONTENT_FILTER = """
            {"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content \
            management policy.","type":null,"param":"prompt","code":"content_filter","status":400}}""";

    private static final String OPENAI_INSUFFICIENT_QUOTA = """
            {"error":{"message":"You exceeded your current quota, please check your plan and billing details.",\
            "type":"insufficient_quota","param":null,"code":"insufficient_quota"}}""";

    private static final String ANTHROPIC_CREDIT = """
            {"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to \
            access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}""";

    private static final String ANTHROPIC_SPEND_LIMIT = """
            {"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified \
            API usage limits. You will regain access on 2026-02-01 at 00:00 UTC."}}""";

    private static final String OPENAI_RATE_LIMIT = """
            {"error":{"message":"Rate limit reached for gpt-4o-mini on tokens per min (TPM): Limit 50000, Used \
            47949, Requested 3006. Please try again in 1.146s.","type":"tokens","param":null,\
            "code":"rate_limit_exceeded"}}""";

    @Test
    void aPromptTooLongIsAContextLengthRefusalOfEitherProvider() {
        assertThat(ProviderRefusals.classify(400, ANTHROPIC_TOO_LONG)).isEqualTo(FallbackOn.CONTEXT_LENGTH);
        assertThat(ProviderRefusals.classify(400, OPENAI_TOO_LONG)).isEqualTo(FallbackOn.CONTEXT_LENGTH);
    }

    @Test
    void contentPolicyCodesAreContentPolicyRefusals() {
        assertThat(ProviderRefusals.classify(400, OPENAI_CONTENT_POLICY)).isEqualTo(FallbackOn.CONTENT_POLICY);
        assertThat(ProviderRefusals.classify(400, AZURE_CONTENT_FILTER)).isEqualTo(FallbackOn.CONTENT_POLICY);
    }

    @Test
    void quotaAndBillingErrorsAreQuotaRefusals() {
        assertThat(ProviderRefusals.classify(429, OPENAI_INSUFFICIENT_QUOTA)).isEqualTo(FallbackOn.QUOTA);
        assertThat(ProviderRefusals.classify(400, ANTHROPIC_CREDIT)).isEqualTo(FallbackOn.QUOTA);
        assertThat(ProviderRefusals.classify(400, ANTHROPIC_SPEND_LIMIT)).isEqualTo(FallbackOn.QUOTA);
        assertThat(ProviderRefusals.classify(402, "")).isEqualTo(FallbackOn.QUOTA);
    }

    @Test
    void rateLimitsServerErrorsAndSuccessesAreNoRefusal() {
        assertThat(ProviderRefusals.classify(429, OPENAI_RATE_LIMIT)).isNull();
        assertThat(ProviderRefusals.classify(500, OPENAI_TOO_LONG)).isNull();
        assertThat(ProviderRefusals.classify(200, OPENAI_TOO_LONG)).isNull();
        assertThat(ProviderRefusals.classify(400, "{\"error\":{\"type\":\"invalid_request_error\"}}")).isNull();
        assertThat(ProviderRefusals.classify(400, null)).isNull();
    }

    @Test
    void theCoreAdaptersExceptionIsRead() {
        ProviderResponseException ex = new ProviderResponseException(400, OPENAI_TOO_LONG.getBytes(UTF_8));
        assertThat(ProviderRefusals.classify(ex)).isEqualTo(FallbackOn.CONTEXT_LENGTH);
    }

    @Test
    void aRefusalQuotedInAWrappedMessageIsFound() {
        // the official SDKs: "400: {body}", Spring AI: "HTTP 400 - {body}"
        RuntimeException sdk = new RuntimeException("400: " + ANTHROPIC_CREDIT);
        RuntimeException springAi = new RuntimeException("HTTP 400 - " + ANTHROPIC_TOO_LONG);
        assertThat(ProviderRefusals.classify(new IllegalStateException("call failed", sdk)))
            .isEqualTo(FallbackOn.QUOTA);
        assertThat(ProviderRefusals.classify(springAi)).isEqualTo(FallbackOn.CONTEXT_LENGTH);
        assertThat(ProviderRefusals.classify(new IllegalStateException("boom"))).isNull();
    }

}
