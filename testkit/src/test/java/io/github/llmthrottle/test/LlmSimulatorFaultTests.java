package io.github.llmthrottle.test;

import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static io.github.llmthrottle.test.SimClient.anthropic;
import static io.github.llmthrottle.test.SimClient.chat;
import static io.github.llmthrottle.test.SimClient.header;
import static io.github.llmthrottle.test.SimClient.json;
import static io.github.llmthrottle.test.SimClient.messages;
import static io.github.llmthrottle.test.SimClient.openAi;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LlmSimulatorFaultTests {

    private static final String OPUS = "claude-opus-4-7";

    private static final String GPT = "gpt-4o";

    private final ManualClock clock = ManualClock.at("2026-08-20T10:00:00Z");

    private final LlmSimulator simulator = LlmSimulator.builder()
        .clock(this.clock)
        .noLatency()
        .model(OPUS, ModelLimits.of(2, 0, 0))
        .start();

    @AfterEach
    void close() {
        this.simulator.close();
    }

    private int status(String model) {
        return anthropic(this.simulator, messages(model, 10, "hi")).statusCode();
    }

    @Test
    void scriptedFaultsAnswerTheNextRequestsInOrder() {
        this.simulator.script(OPUS, Fault.status(429).retryAfter("1"), Fault.status(529), Fault.ok());
        assertThat(this.simulator.pendingScript(OPUS)).isEqualTo(3);
        HttpResponse<String> first = anthropic(this.simulator, messages(OPUS, 10, "hi"));
        assertThat(first.statusCode()).isEqualTo(429);
        assertThat(header(first, "retry-after")).isEqualTo("1");
        assertThat(json(first).at("/error/type").stringValue()).isEqualTo("rate_limit_error");
        // a scripted 429 looks like an acceleration limit: the headers still show room
        assertThat(header(first, "anthropic-ratelimit-requests-remaining")).isEqualTo("2");
        HttpResponse<String> second = anthropic(this.simulator, messages(OPUS, 10, "hi"));
        assertThat(second.statusCode()).isEqualTo(529);
        assertThat(json(second).at("/error/type").stringValue()).isEqualTo("overloaded_error");
        assertThat(json(second).at("/error/message").stringValue()).isEqualTo("Overloaded");
        assertThat(header(second, "retry-after")).isNull();
        assertThat(status(OPUS)).isEqualTo(200);
        assertThat(this.simulator.pendingScript(OPUS)).isZero();
        // the script is used up; the two admitted requests used the whole RPM bucket
        assertThat(status(OPUS)).isEqualTo(200);
        assertThat(status(OPUS)).isEqualTo(429);
    }

    @Test
    void scriptsForAnyModelApplyAfterTheModelsOwnScript() {
        this.simulator.script(LlmSimulator.ANY_MODEL, Fault.status(500), Fault.status(503));
        this.simulator.script("haiku", Fault.status(504));
        assertThat(status("haiku")).isEqualTo(504);
        assertThat(status("haiku")).isEqualTo(500);
        assertThat(status(OPUS)).isEqualTo(503);
        assertThat(status(OPUS)).isEqualTo(200);
    }

    @Test
    void errorBodiesFollowTheDialect() {
        this.simulator.script(GPT, Fault.overloaded(), Fault.status(500),
                Fault.status(429).errorCode("slow_down").errorType("rate_limit_error"));
        HttpResponse<String> overloaded = openAi(this.simulator, chat(GPT, 10, "hi"));
        assertThat(overloaded.statusCode()).isEqualTo(503);
        assertThat(json(overloaded).at("/error/type").stringValue()).isEqualTo("service_unavailable_error");
        assertThat(json(overloaded).at("/error/code").stringValue()).isEqualTo("server_is_overloaded");
        HttpResponse<String> serverError = openAi(this.simulator, chat(GPT, 10, "hi"));
        assertThat(json(serverError).at("/error/type").stringValue()).isEqualTo("server_error");
        HttpResponse<String> slowDown = openAi(this.simulator, chat(GPT, 10, "hi"));
        assertThat(json(slowDown).at("/error/code").stringValue()).isEqualTo("slow_down");
        assertThat(json(slowDown).at("/error/type").stringValue()).isEqualTo("rate_limit_error");
        this.simulator.script(OPUS, Fault.status(500).message("boom"));
        HttpResponse<String> anthropic500 = anthropic(this.simulator, messages(OPUS, 10, "hi"));
        assertThat(json(anthropic500).at("/error/type").stringValue()).isEqualTo("api_error");
        assertThat(json(anthropic500).at("/error/message").stringValue()).isEqualTo("boom");
        assertThat(json(anthropic500).get("request_id").stringValue()).isEqualTo(header(anthropic500, "request-id"));
    }

    @Test
    void faultsDoNotDebitTheBuckets() {
        this.simulator.script(OPUS, Fault.status(529), Fault.status(529), Fault.status(529));
        IntStream.range(0, 3).forEach((i) -> assertThat(status(OPUS)).isEqualTo(529));
        assertThat(status(OPUS)).isEqualTo(200);
        assertThat(status(OPUS)).isEqualTo(200);
    }

    @Test
    void quotaFaultsAreNotRetryableAndCarryNoRetryAfter() {
        this.simulator.script(OPUS, Fault.quotaExceeded());
        HttpResponse<String> anthropicQuota = anthropic(this.simulator, messages(OPUS, 10, "hi"));
        assertThat(anthropicQuota.statusCode()).isEqualTo(429);
        assertThat(header(anthropicQuota, "retry-after")).isNull();
        assertThat(json(anthropicQuota).at("/error/type").stringValue()).isEqualTo("rate_limit_error");
        assertThat(json(anthropicQuota).at("/error/details/error_code").stringValue())
            .isEqualTo("enforced_spend_limit_reached");
        assertThat(json(anthropicQuota).at("/error/message").stringValue()).contains("2026-09-01 at 00:00 UTC");
        this.simulator.script(GPT, Fault.quotaExceeded());
        HttpResponse<String> openAiQuota = openAi(this.simulator, chat(GPT, 10, "hi"));
        assertThat(openAiQuota.statusCode()).isEqualTo(429);
        assertThat(json(openAiQuota).at("/error/type").stringValue()).isEqualTo("insufficient_quota");
        assertThat(json(openAiQuota).at("/error/code").stringValue()).isEqualTo("insufficient_quota");
    }

    @Test
    void connectionResetClosesTheConnectionWithoutAResponse() {
        this.simulator.script(OPUS, Fault.connectionReset());
        assertThatThrownBy(() -> anthropic(this.simulator, messages(OPUS, 10, "hi")))
            .isInstanceOf(UncheckedIOException.class);
        assertThat(status(OPUS)).isEqualTo(200);
        assertThat(this.simulator.stats().connectionResets()).isEqualTo(1);
    }

    @Test
    void slowResponsesWaitBeforeAnswering() {
        this.simulator.script(OPUS, Fault.delay(Duration.ofMillis(300)),
                Fault.status(529).delayed(Duration.ofMillis(300)));
        long start = System.nanoTime();
        assertThat(status(OPUS)).isEqualTo(200);
        assertThat(status(OPUS)).isEqualTo(529);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(600));
    }

    @Test
    void outagesLastUntilTheClockPassesTheirEnd() {
        this.simulator.outage(OPUS, Duration.ofSeconds(10));
        this.simulator.outage(GPT, Duration.ofSeconds(10));
        assertThat(status(OPUS)).isEqualTo(529);
        assertThat(openAi(this.simulator, chat(GPT, 10, "hi")).statusCode()).isEqualTo(503);
        assertThat(status("haiku")).isEqualTo(200);
        this.clock.advance(Duration.ofSeconds(10));
        assertThat(status(OPUS)).isEqualTo(200);
        this.simulator.outage(LlmSimulator.ANY_MODEL, Duration.ofMinutes(1), Fault.status(503));
        assertThat(status("haiku")).isEqualTo(503);
        this.simulator.endOutage(LlmSimulator.ANY_MODEL);
        assertThat(status("haiku")).isEqualTo(200);
    }

    @Test
    void randomFaultsAreReproducibleWithTheSameSeed() {
        RandomFaults faults = RandomFaults.none().withOverloaded(0.3).withServerError(0.2);
        List<Integer> first = new ArrayList<>();
        List<Integer> second = new ArrayList<>();
        this.simulator.setRandomFaults(LlmSimulator.ANY_MODEL, faults).setSeed(7);
        IntStream.range(0, 40).forEach((i) -> first.add(status("haiku")));
        this.simulator.setSeed(7);
        IntStream.range(0, 40).forEach((i) -> second.add(status("haiku")));
        assertThat(first).isEqualTo(second).contains(200, 529, 500);
        this.simulator.setRandomFaults(LlmSimulator.ANY_MODEL, RandomFaults.none().withOverloaded(1));
        assertThat(status("haiku")).isEqualTo(529);
        this.simulator.script("haiku", Fault.ok());
        assertThat(status("haiku")).as("a scripted ok is never a random fault").isEqualTo(200);
    }

    @Test
    void concurrencyCapRejectsRequestsBeyondTheLimit() {
        this.simulator.setLatency(Duration.ofSeconds(1), Duration.ZERO);
        this.simulator.setConcurrencyLimit("haiku", 2, 529);
        List<CompletableFuture<HttpResponse<String>>> calls = IntStream.range(0, 5)
            .mapToObj((i) -> SimClient.HTTP.sendAsync(
                    SimClient.request(this.simulator, "/v1/messages", messages("haiku", 10, "hi")).build(),
                    HttpResponse.BodyHandlers.ofString()))
            .toList();
        List<Integer> statuses = calls.stream().map(CompletableFuture::join).map(HttpResponse::statusCode).toList();
        assertThat(statuses).filteredOn((s) -> s == 200).hasSize(2);
        assertThat(statuses).filteredOn((s) -> s == 529).hasSize(3);
        assertThat(this.simulator.stats("haiku").maxConcurrent()).isGreaterThanOrEqualTo(3);
        this.simulator.setLatency(Duration.ZERO, Duration.ZERO);
        this.simulator.setConcurrencyLimit(LlmSimulator.ANY_MODEL, 0, 429);
        assertThat(status("haiku")).isEqualTo(200);
    }

    @Test
    void concurrencyCapCanAnswer429() {
        this.simulator.setConcurrencyLimit(LlmSimulator.ANY_MODEL, 1, 429);
        this.simulator.script("haiku", Fault.delay(Duration.ofMillis(800)));
        CompletableFuture<HttpResponse<String>> slow = SimClient.HTTP.sendAsync(
                SimClient.request(this.simulator, "/v1/messages", messages("haiku", 10, "hi")).build(),
                HttpResponse.BodyHandlers.ofString());
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> this.simulator.inFlight() == 1);
        HttpResponse<String> rejected = anthropic(this.simulator, messages(OPUS, 10, "hi"));
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(json(rejected).at("/error/message").stringValue()).contains("concurrent");
        assertThat(slow.join().statusCode()).isEqualTo(200);
    }

    @Test
    void headersCanBeOverridden() {
        this.simulator.setHeader("x-should-retry", "true").setHeader("request-id", null);
        this.simulator.script(OPUS,
                Fault.ok()
                    .header("anthropic-ratelimit-requests-remaining", "0")
                    .withoutHeader("anthropic-ratelimit-requests-reset"));
        HttpResponse<String> response = anthropic(this.simulator, messages(OPUS, 10, "hi"));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(header(response, "x-should-retry")).isEqualTo("true");
        assertThat(header(response, "request-id")).isNull();
        assertThat(header(response, "anthropic-ratelimit-requests-remaining")).isEqualTo("0");
        assertThat(header(response, "anthropic-ratelimit-requests-reset")).isNull();
        this.simulator.clearFaults();
        assertThat(header(anthropic(this.simulator, messages(OPUS, 10, "hi")), "request-id")).startsWith("req_");
    }

}
