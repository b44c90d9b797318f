package io.github.llmthrottle.test;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static io.github.llmthrottle.test.SimClient.anthropic;
import static io.github.llmthrottle.test.SimClient.chat;
import static io.github.llmthrottle.test.SimClient.header;
import static io.github.llmthrottle.test.SimClient.json;
import static io.github.llmthrottle.test.SimClient.messages;
import static io.github.llmthrottle.test.SimClient.openAi;
import static io.github.llmthrottle.test.SimClient.post;
import static io.github.llmthrottle.test.SimClient.textOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class LlmSimulatorTests {

    private static final String OPUS = "claude-opus-4-7";

    private static final String GPT = "gpt-4o-mini";

    private final ManualClock clock = ManualClock.at("2023-09-29T16:26:37Z");

    private LlmSimulator simulator;

    @AfterEach
    void close() {
        if (this.simulator != null) {
            this.simulator.close();
        }
    }

    private LlmSimulator start(LlmSimulator.Builder builder) {
        this.simulator = builder.clock(this.clock).noLatency().start();
        return this.simulator;
    }

    @Test
    void anthropicMessageHasRealisticBodyAndRateLimitHeaders() {
        start(LlmSimulator.builder().model(OPUS, ModelLimits.of(50, 10_000, 2_000)));
        HttpResponse<String> response = anthropic(this.simulator, messages(OPUS, 500, "Hello, world"), "x-api-key",
                "sk-test");
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = json(response);
        assertThat(body.get("id").stringValue()).startsWith("msg_");
        assertThat(body.get("type").stringValue()).isEqualTo("message");
        assertThat(body.get("role").stringValue()).isEqualTo("assistant");
        assertThat(body.get("model").stringValue()).isEqualTo(OPUS);
        assertThat(body.get("stop_reason").stringValue()).isEqualTo("end_turn");
        assertThat(body.at("/content/0/type").stringValue()).isEqualTo("text");
        assertThat(body.at("/content/0/text").stringValue()).hasSize(400);
        assertThat(body.at("/usage/input_tokens").intValue()).isEqualTo(3);
        assertThat(body.at("/usage/output_tokens").intValue()).isEqualTo(100);
        assertThat(body.at("/usage/cache_creation_input_tokens").intValue()).isZero();
        assertThat(body.at("/usage/cache_read_input_tokens").intValue()).isZero();
        assertThat(header(response, "content-type")).startsWith("application/json");
        assertThat(header(response, "request-id")).startsWith("req_");
        assertThat(header(response, "anthropic-ratelimit-requests-limit")).isEqualTo("50");
        assertThat(header(response, "anthropic-ratelimit-requests-remaining")).isEqualTo("49");
        // one request missing = 1.2 s to full, rounded up to the whole second
        assertThat(header(response, "anthropic-ratelimit-requests-reset")).isEqualTo("2023-09-29T16:26:39Z");
        assertThat(header(response, "anthropic-ratelimit-input-tokens-limit")).isEqualTo("10000");
        assertThat(header(response, "anthropic-ratelimit-input-tokens-remaining")).isEqualTo("10000");
        assertThat(header(response, "anthropic-ratelimit-input-tokens-reset")).isEqualTo("2023-09-29T16:26:38Z");
        assertThat(header(response, "anthropic-ratelimit-output-tokens-limit")).isEqualTo("2000");
        assertThat(header(response, "anthropic-ratelimit-output-tokens-remaining")).isEqualTo("2000");
        assertThat(header(response, "anthropic-ratelimit-output-tokens-reset")).isEqualTo("2023-09-29T16:26:40Z");
        assertThat(header(response, "anthropic-ratelimit-tokens-limit")).isEqualTo("12000");
        assertThat(header(response, "anthropic-ratelimit-tokens-remaining")).isEqualTo("12000");
        assertThat(header(response, "anthropic-ratelimit-tokens-reset")).isEqualTo("2023-09-29T16:26:40Z");
    }

    @Test
    void anthropicRemainingHeadersAreExactWhenRoundingIsOff() {
        start(LlmSimulator.builder().model(OPUS, ModelLimits.of(50, 10_000, 2_000)).roundRemainingTokens(false));
        HttpResponse<String> response = anthropic(this.simulator, messages(OPUS, 500, textOf(30)));
        assertThat(header(response, "anthropic-ratelimit-input-tokens-remaining")).isEqualTo("9970");
        assertThat(header(response, "anthropic-ratelimit-output-tokens-remaining")).isEqualTo("1900");
        assertThat(header(response, "anthropic-ratelimit-tokens-remaining")).isEqualTo("11870");
    }

    @Test
    void maxTokensIsReservedAtAdmissionAndTheUnusedPartRefundedAtTheEnd() throws Exception {
        start(LlmSimulator.builder().model(OPUS, ModelLimits.of(0, 0, 1_000)).roundRemainingTokens(false));
        this.simulator.setLatency(Duration.ofMillis(800), Duration.ZERO);
        CompletableFuture<HttpResponse<String>> slow = SimClient.HTTP.sendAsync(
                SimClient.request(this.simulator, "/v1/messages", messages(OPUS, 600, "hi")).build(),
                HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(60))
            .untilAsserted(() -> assertThat(this.simulator.levels("", OPUS).outputTokens()).isEqualTo(400));
        assertThat(slow.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(this.simulator.levels("", OPUS).outputTokens()).isEqualTo(900);
        this.simulator.setLatency(Duration.ZERO, Duration.ZERO);
        assertThat(anthropic(this.simulator, messages(OPUS, 600, "hi")).statusCode()).isEqualTo(200);
        assertThat(this.simulator.levels("", OPUS).outputTokens()).isEqualTo(800);
        HttpResponse<String> rejected = anthropic(this.simulator, messages(OPUS, 900, "hi"));
        assertThat(rejected.statusCode()).isEqualTo(429);
        // 100 tokens missing at 1000 per minute
        assertThat(header(rejected, "retry-after")).isEqualTo("6");
        assertThat(json(rejected).at("/error/message").stringValue()).contains("output tokens per minute");
        assertThat(this.simulator.levels("", OPUS).outputTokens()).isEqualTo(800);
    }

    @Test
    void aBucketWindowMakesBucketsHoldThatMuchOfTheLimit() {
        start(LlmSimulator.builder().model(OPUS, ModelLimits.of(60, 0, 0)).bucketWindow(Duration.ofSeconds(20)));
        for (int i = 0; i < 20; i++) {
            assertThat(anthropic(this.simulator, messages(OPUS, 10, "hi")).statusCode()).isEqualTo(200);
        }
        HttpResponse<String> rejected = anthropic(this.simulator, messages(OPUS, 10, "hi"));
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(header(rejected, "retry-after")).isEqualTo("1");
        assertThat(header(rejected, "anthropic-ratelimit-requests-limit")).isEqualTo("60");
        assertThat(header(rejected, "anthropic-ratelimit-requests-remaining")).isEqualTo("0");
        // full again in 20 s, refilling at the per-minute rate
        assertThat(header(rejected, "anthropic-ratelimit-requests-reset")).isEqualTo("2023-09-29T16:26:57Z");
        this.clock.advance(Duration.ofSeconds(1));
        assertThat(anthropic(this.simulator, messages(OPUS, 10, "hi")).statusCode()).isEqualTo(200);
        this.clock.advance(Duration.ofMinutes(1));
        HttpResponse<String> later = anthropic(this.simulator, messages(OPUS, 10, "hi"));
        assertThat(header(later, "anthropic-ratelimit-requests-remaining")).isEqualTo("19");
    }

    @Test
    void aRequestLargerThanTheBucketWindowIsRefusedWithoutRetryAfter() {
        start(LlmSimulator.builder()
            .model(OPUS, ModelLimits.of(0, 6_000, 0))
            .bucketWindow(Duration.ofSeconds(20))
            .roundRemainingTokens(false));
        HttpResponse<String> rejected = anthropic(this.simulator, messages(OPUS, 10, textOf(2_500)));
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(header(rejected, "retry-after")).isNull();
        assertThat(anthropic(this.simulator, messages(OPUS, 10, textOf(1_900))).statusCode()).isEqualTo(200);
    }

    @Test
    void aBucketWindowOutsideOneMillisecondToOneMinuteIsRefused() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> LlmSimulator.builder().bucketWindow(Duration.ofMinutes(2)));
        assertThatIllegalArgumentException().isThrownBy(() -> LlmSimulator.builder().bucketWindow(Duration.ZERO));
    }

    @Test
    void bucketsRefillContinuouslyWithTheClock() {
        start(LlmSimulator.builder().model(OPUS, ModelLimits.of(60, 0, 0)));
        for (int i = 0; i < 60; i++) {
            assertThat(anthropic(this.simulator, messages(OPUS, 10, "hi")).statusCode()).isEqualTo(200);
        }
        HttpResponse<String> rejected = anthropic(this.simulator, messages(OPUS, 10, "hi"));
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(header(rejected, "retry-after")).isEqualTo("1");
        assertThat(header(rejected, "anthropic-ratelimit-requests-remaining")).isEqualTo("0");
        assertThat(header(rejected, "anthropic-ratelimit-requests-reset")).isEqualTo("2023-09-29T16:27:37Z");
        this.clock.advance(Duration.ofMillis(500));
        HttpResponse<String> stillRejected = anthropic(this.simulator, messages(OPUS, 10, "hi"));
        assertThat(header(stillRejected, "retry-after")).isEqualTo("1");
        this.clock.advance(Duration.ofMillis(500));
        assertThat(anthropic(this.simulator, messages(OPUS, 10, "hi")).statusCode()).isEqualTo(200);
        this.clock.advance(Duration.ofSeconds(30));
        HttpResponse<String> later = anthropic(this.simulator, messages(OPUS, 10, "hi"));
        assertThat(header(later, "anthropic-ratelimit-requests-remaining")).isEqualTo("29");
    }

    @Test
    void anthropic429HasTheErrorEnvelopeAndRetryAfter() {
        start(LlmSimulator.builder().model(OPUS, ModelLimits.of(0, 1_000, 0)));
        assertThat(anthropic(this.simulator, messages(OPUS, 10, textOf(500))).statusCode()).isEqualTo(200);
        assertThat(anthropic(this.simulator, messages(OPUS, 10, textOf(500))).statusCode()).isEqualTo(200);
        HttpResponse<String> rejected = anthropic(this.simulator, messages(OPUS, 10, textOf(500)));
        assertThat(rejected.statusCode()).isEqualTo(429);
        JsonNode body = json(rejected);
        assertThat(body.get("type").stringValue()).isEqualTo("error");
        assertThat(body.at("/error/type").stringValue()).isEqualTo("rate_limit_error");
        assertThat(body.at("/error/message").stringValue()).contains("1,000 input tokens per minute");
        assertThat(body.get("request_id").stringValue()).isEqualTo(header(rejected, "request-id"));
        assertThat(header(rejected, "retry-after")).isEqualTo("30");
        assertThat(header(rejected, "anthropic-ratelimit-input-tokens-remaining")).isEqualTo("0");
    }

    @Test
    void aRequestLargerThanTheBucketGets429WithoutRetryAfter() {
        start(LlmSimulator.builder().model(GPT, ModelLimits.openAi(0, 1_000)));
        HttpResponse<String> rejected = openAi(this.simulator, chat(GPT, 2_000, "hi"));
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(header(rejected, "retry-after")).isNull();
        assertThat(json(rejected).at("/error/message").stringValue())
            .startsWith("Request too large for gpt-4o-mini in organization org-simulated on tokens per min (TPM): "
                    + "Limit 1000, Requested 2001.");
    }

    @Test
    void openAiCompletionHasRealisticBodyAndRateLimitHeaders() {
        start(LlmSimulator.builder().model(GPT, ModelLimits.openAi(500, 10_000)));
        HttpResponse<String> response = openAi(this.simulator, chat(GPT, 1_000, textOf(100)), "authorization",
                "Bearer sk-test");
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = json(response);
        assertThat(body.get("id").stringValue()).startsWith("chatcmpl-");
        assertThat(body.get("object").stringValue()).isEqualTo("chat.completion");
        assertThat(body.get("created").longValue()).isEqualTo(1696004797L);
        assertThat(body.at("/choices/0/message/role").stringValue()).isEqualTo("assistant");
        assertThat(body.at("/choices/0/message/content").stringValue()).hasSize(400);
        assertThat(body.at("/choices/0/finish_reason").stringValue()).isEqualTo("stop");
        assertThat(body.at("/usage/prompt_tokens").intValue()).isEqualTo(100);
        assertThat(body.at("/usage/completion_tokens").intValue()).isEqualTo(100);
        assertThat(body.at("/usage/total_tokens").intValue()).isEqualTo(200);
        assertThat(header(response, "x-request-id")).startsWith("req_");
        assertThat(header(response, "x-ratelimit-limit-requests")).isEqualTo("500");
        assertThat(header(response, "x-ratelimit-remaining-requests")).isEqualTo("499");
        assertThat(header(response, "x-ratelimit-reset-requests")).isEqualTo("120ms");
        assertThat(header(response, "x-ratelimit-limit-tokens")).isEqualTo("10000");
        // prompt + max_tokens debited, then corrected to prompt + actual output
        assertThat(header(response, "x-ratelimit-remaining-tokens")).isEqualTo("9800");
        assertThat(header(response, "x-ratelimit-reset-tokens")).isEqualTo("1.2s");
    }

    @Test
    void openAiDebitsPromptPlusMaxTokensFromOneTokenBucket() {
        start(LlmSimulator.builder().model(GPT, ModelLimits.openAi(0, 1_000)));
        for (int i = 0; i < 3; i++) {
            assertThat(openAi(this.simulator, chat(GPT, 500, textOf(100))).statusCode()).isEqualTo(200);
        }
        assertThat(this.simulator.levels("", GPT).tokens()).isEqualTo(400);
        HttpResponse<String> rejected = openAi(this.simulator, chat(GPT, 500, textOf(100)));
        assertThat(rejected.statusCode()).isEqualTo(429);
        JsonNode error = json(rejected).get("error");
        assertThat(error.get("type").stringValue()).isEqualTo("tokens");
        assertThat(error.get("code").stringValue()).isEqualTo("rate_limit_exceeded");
        assertThat(error.get("param").isNull()).isTrue();
        assertThat(error.get("message").stringValue()).isEqualTo("Rate limit reached for gpt-4o-mini in organization "
                + "org-simulated on tokens per min (TPM): Limit 1000, Used 600, Requested 600. Please try again in 12s. "
                + "Visit https://platform.openai.com/account/rate-limits to learn more.");
        assertThat(header(rejected, "retry-after")).isEqualTo("12");
        assertThat(header(rejected, "x-ratelimit-remaining-tokens")).isEqualTo("400");
        assertThat(header(rejected, "x-ratelimit-reset-tokens")).isEqualTo("36s");
    }

    @Test
    void openAiRequestLimitGives429OfTypeRequests() {
        start(LlmSimulator.builder().model(GPT, ModelLimits.openAi(3, 0)));
        for (int i = 0; i < 3; i++) {
            assertThat(openAi(this.simulator, chat(GPT, 10, "hi")).statusCode()).isEqualTo(200);
        }
        HttpResponse<String> rejected = openAi(this.simulator, chat(GPT, 10, "hi"));
        assertThat(json(rejected).at("/error/type").stringValue()).isEqualTo("requests");
        assertThat(json(rejected).at("/error/message").stringValue())
            .contains("on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.");
        assertThat(header(rejected, "retry-after")).isEqualTo("20");
        assertThat(header(rejected, "x-ratelimit-reset-requests")).isEqualTo("1m0s");
    }

    @Test
    void openAiWithoutMaxTokensIsChargedItsActualOutput() {
        start(LlmSimulator.builder().model(GPT, ModelLimits.openAi(0, 1_000)).outputTokens(250));
        HttpResponse<String> response = openAi(this.simulator, chat(GPT, 0, textOf(50)));
        assertThat(json(response).at("/usage/completion_tokens").intValue()).isEqualTo(250);
        assertThat(this.simulator.levels("", GPT).tokens()).isEqualTo(700);
    }

    @Test
    void maxCompletionTokensCapsTheOutput() {
        start(LlmSimulator.builder());
        HttpResponse<String> response = openAi(this.simulator,
                "{\"model\":\"gpt-5\",\"max_completion_tokens\":7,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(json(response).at("/usage/completion_tokens").intValue()).isEqualTo(7);
        assertThat(json(response).at("/choices/0/finish_reason").stringValue()).isEqualTo("length");
    }

    @Test
    void anthropicOutputStopsAtMaxTokens() {
        start(LlmSimulator.builder());
        HttpResponse<String> response = anthropic(this.simulator, messages(OPUS, 5, "hi"));
        assertThat(json(response).at("/usage/output_tokens").intValue()).isEqualTo(5);
        assertThat(json(response).get("stop_reason").stringValue()).isEqualTo("max_tokens");
    }

    @Test
    void inputEstimateCountsSystemAndContentBlocks() {
        start(LlmSimulator.builder());
        String body = "{\"model\":\"m\",\"max_tokens\":10,\"system\":\"" + textOf(10)
                + "\",\"messages\":[{\"role\":\"user\"," + "\"content\":[{\"type\":\"text\",\"text\":\"" + textOf(5)
                + "\"}]},{\"role\":\"assistant\",\"content\":\"" + textOf(5) + "\"}]}";
        assertThat(json(anthropic(this.simulator, body)).at("/usage/input_tokens").intValue()).isEqualTo(20);
        assertThat(TokenEstimate.of(textOf(10), textOf(5), textOf(5))).isEqualTo(20);
    }

    @Test
    void bucketsArePerApiKey() {
        start(LlmSimulator.builder().model(OPUS, ModelLimits.of(1, 0, 0)));
        assertThat(anthropic(this.simulator, messages(OPUS, 10, "hi"), "x-api-key", "a").statusCode()).isEqualTo(200);
        assertThat(anthropic(this.simulator, messages(OPUS, 10, "hi"), "x-api-key", "a").statusCode()).isEqualTo(429);
        assertThat(anthropic(this.simulator, messages(OPUS, 10, "hi"), "x-api-key", "b").statusCode()).isEqualTo(200);
        assertThat(anthropic(this.simulator, messages(OPUS, 10, "hi"), "authorization", "Bearer b").statusCode())
            .isEqualTo(429);
    }

    @Test
    void limitsCanChangeAtRuntime() {
        start(LlmSimulator.builder().model(OPUS, ModelLimits.of(100, 0, 0)));
        assertThat(
                header(anthropic(this.simulator, messages(OPUS, 10, "hi")), "anthropic-ratelimit-requests-remaining"))
            .isEqualTo("99");
        this.simulator.setLimits(OPUS, ModelLimits.of(2, 0, 0));
        HttpResponse<String> response = anthropic(this.simulator, messages(OPUS, 10, "hi"));
        assertThat(header(response, "anthropic-ratelimit-requests-limit")).isEqualTo("2");
        assertThat(header(response, "anthropic-ratelimit-requests-remaining")).isEqualTo("1");
        assertThat(this.simulator.limitsFor(OPUS)).isEqualTo(ModelLimits.of(2, 0, 0));
    }

    @Test
    void unknownModelsUseTheDefaultLimits() {
        start(LlmSimulator.builder());
        HttpResponse<String> unlimited = anthropic(this.simulator, messages("other", 10, "hi"));
        assertThat(unlimited.statusCode()).isEqualTo(200);
        assertThat(header(unlimited, "anthropic-ratelimit-requests-limit")).isNull();
        this.simulator.setDefaultLimits(ModelLimits.of(7, 0, 0));
        assertThat(header(anthropic(this.simulator, messages("other", 10, "hi")), "anthropic-ratelimit-requests-limit"))
            .isEqualTo("7");
    }

    @Test
    void invalidBodiesGet400InvalidRequestError() {
        start(LlmSimulator.builder());
        HttpResponse<String> notJson = anthropic(this.simulator, "not json");
        assertThat(notJson.statusCode()).isEqualTo(400);
        assertThat(json(notJson).at("/error/type").stringValue()).isEqualTo("invalid_request_error");
        HttpResponse<String> noMaxTokens = anthropic(this.simulator,
                "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(noMaxTokens.statusCode()).isEqualTo(400);
        assertThat(json(noMaxTokens).at("/error/message").stringValue()).isEqualTo("max_tokens: Field required");
        assertThat(json(anthropic(this.simulator, "{\"max_tokens\":5,\"messages\":[]}")).at("/error/message")
            .stringValue()).isEqualTo("model: Field required");
        HttpResponse<String> noModel = openAi(this.simulator, "{\"messages\":[]}");
        assertThat(noModel.statusCode()).isEqualTo(400);
        assertThat(json(noModel).at("/error/type").stringValue()).isEqualTo("invalid_request_error");
        assertThat(header(noModel, "x-request-id")).startsWith("req_");
        HttpResponse<String> noMessages = openAi(this.simulator, "{\"model\":\"gpt-4o\"}");
        assertThat(json(noMessages).at("/error/param").stringValue()).isEqualTo("messages");
    }

    @Test
    void unknownPathsGet404AndOtherMethods405() throws Exception {
        start(LlmSimulator.builder());
        HttpResponse<String> notFound = post(this.simulator, "/v1/nothing", "{}");
        assertThat(notFound.statusCode()).isEqualTo(404);
        assertThat(json(notFound).at("/error/type").stringValue()).isEqualTo("not_found_error");
        HttpResponse<String> get = SimClient.HTTP
            .send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(this.simulator.baseUrl() + "/v1/messages"))
                .GET()
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(get.statusCode()).isEqualTo(405);
    }

    @Test
    void apiKeysCanBeRequired() {
        start(LlmSimulator.builder().apiKeys("sk-good"));
        HttpResponse<String> missing = anthropic(this.simulator, messages(OPUS, 10, "hi"));
        assertThat(missing.statusCode()).isEqualTo(401);
        assertThat(json(missing).at("/error/type").stringValue()).isEqualTo("authentication_error");
        assertThat(anthropic(this.simulator, messages(OPUS, 10, "hi"), "x-api-key", "sk-bad").statusCode())
            .isEqualTo(401);
        assertThat(anthropic(this.simulator, messages(OPUS, 10, "hi"), "x-api-key", "sk-good").statusCode())
            .isEqualTo(200);
        HttpResponse<String> openAiWrong = openAi(this.simulator, chat(GPT, 10, "hi"), "authorization",
                "Bearer sk-bad");
        assertThat(openAiWrong.statusCode()).isEqualTo(401);
        assertThat(json(openAiWrong).at("/error/code").stringValue()).isEqualTo("invalid_api_key");
        assertThat(openAiWrong.body()).doesNotContain("sk-bad");
    }

    @Test
    void countTokensReturnsTheInputEstimate() {
        start(LlmSimulator.builder());
        HttpResponse<String> response = post(this.simulator, "/v1/messages/count_tokens",
                "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + textOf(42) + "\"}]}");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(json(response).get("input_tokens").intValue()).isEqualTo(42);
    }

    @Test
    void openAiPathsWorkWithAndWithoutV1() {
        start(LlmSimulator.builder());
        assertThat(post(this.simulator, "/chat/completions", chat(GPT, 10, "hi")).statusCode()).isEqualTo(200);
        assertThat(this.simulator.openAiBaseUrl()).isEqualTo(this.simulator.baseUrl() + "/v1");
        assertThat(this.simulator.baseUrl()).startsWith("http://127.0.0.1:").endsWith(":" + this.simulator.port());
    }

    @Test
    void closeStopsPromptlyEvenWithRequestsInFlight() {
        this.simulator = LlmSimulator.builder().latency(Duration.ofSeconds(30), Duration.ZERO).start();
        CompletableFuture<HttpResponse<String>> pending = SimClient.HTTP.sendAsync(
                SimClient.request(this.simulator, "/v1/messages", messages(OPUS, 10, "hi")).build(),
                HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(60)).until(() -> this.simulator.inFlight() == 1);
        long start = System.nanoTime();
        this.simulator.close();
        // waiting for the request in flight would take its 30 s
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
        assertThatThrownBy(() -> pending.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(IOException.class);
    }

}
