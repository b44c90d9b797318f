package io.github.llmthrottle.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.actuate.ProviderSignals;
import io.github.llmthrottle.client.ClientSettings.ModelSettings;
import io.github.llmthrottle.limit.LimiterOptions;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.metrics.ThrottleMetrics;
import io.github.llmthrottle.metrics.ThrottleMetricsOptions;
import io.github.llmthrottle.provider.CharacterTokenEstimator;
import io.github.llmthrottle.provider.Headers;
import io.github.llmthrottle.provider.LlmRequest;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.provider.RequestBodyReader;
import io.github.llmthrottle.provider.TokenEstimator;
import io.github.llmthrottle.provider.UsageReader;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.retry.Jitter;
import io.github.llmthrottle.retry.ResponseBodyReadException;
import io.github.llmthrottle.retry.RetrySettings;
import io.github.llmthrottle.routing.CircuitSettings;
import io.github.llmthrottle.routing.CircuitState;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.within;

/**
 * The call pipeline on its own, with a fake transport instead of an HTTP server and a
 * fake clock instead of sleeping: retries, the pause after a 429, settlement from JSON
 * bodies and streams, the circuit, and the one channel of events that totals, metrics and
 * health all read.
 */
@ExtendWith(OutputCaptureExtension.class)
class ThrottledClientTests {

    private static final String MODEL = "opus";

    private static final String REQUEST = """
            {"model":"opus","max_tokens":1000,"messages":[{"role":"user","content":"hello"}]}""";

    private static final String STREAM_REQUEST = """
            {"model":"opus","max_tokens":1000,"stream":true,"messages":[{"role":"user","content":"hello"}]}""";

    private static final String MESSAGE = """
            {"id":"msg_1","type":"message","content":[{"type":"text","text":"Hi"}],\
            "usage":{"input_tokens":12,"output_tokens":40}}""";

    private static final String RATE_LIMITED = """
            {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}""";

    private static final String OVERLOADED = """
            {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}""";

    private static final String STREAM_START = """
            event: message_start
            data: {"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}

            """;

    private static final String STREAM_END = """
            event: message_delta
            data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":30}}

            event: message_stop
            data: {"type":"message_stop"}

            """;

    private final FakeClock clock = FakeClock.at("2026-08-20T10:00:00Z");

    private final TimeSource time = this.clock.advancingWaits();

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    private final ProviderSignals signals = new ProviderSignals(this.clock);

    private final List<String> attempts = new CopyOnWriteArrayList<>();

    private final List<String> completions = new CopyOnWriteArrayList<>();

    private final FakeProvider provider = new FakeProvider();

    private final RetrySettings retry = new RetrySettings(2, Duration.ofMillis(500), 2.0, Duration.ofSeconds(30),
            Jitter.NONE, true, Duration.ofSeconds(60));

    private LimiterOptions options = LimiterOptions.WITHOUT_SLOW_START;

    private final ThrottledClient client = client(new ModelLimits(1000L, 100_000L, 10_000L, null), this.retry);

    @Test
    void rateLimitedAttemptIsRetriedAfterTheServersWaitAndPausesTheModel() throws IOException {
        this.provider.then(429, RATE_LIMITED, "retry-after", "1", "content-type", "application/json")
            .then(200, MESSAGE, "content-type", "application/json");
        Instant start = this.clock.instant();
        ThrottledResponse<FakeProvider.Response> response = this.client.exchange(request(REQUEST), this.provider);
        assertThat(response.status()).isEqualTo(200);
        assertThat(new String(response.bufferedBody(), StandardCharsets.UTF_8)).isEqualTo(MESSAGE);
        assertThat(this.provider.attempts).isEqualTo(2);
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofSeconds(1));
        assertThat(this.clock.instant()).isAfterOrEqualTo(start.plusSeconds(1));
        assertThat(this.attempts).containsExactly("RATE_LIMITED 429", "SUCCESS 200");
        assertThat(totals()).satisfies((totals) -> {
            assertThat(totals.calls()).isEqualTo(1);
            assertThat(totals.attempts()).isEqualTo(2);
            assertThat(totals.retries()).isEqualTo(1);
            assertThat(totals.rateLimited()).isEqualTo(1);
            assertThat(totals.succeeded()).isEqualTo(1);
        });
        assertThat(this.provider.sent()).allSatisfy((sent) -> assertThat(sent.closed).isTrue());
    }

    @Test
    void aRateLimitWithOnlyTheResetOfTheExhaustedBucketPausesTheModelUntilTheCallFits() throws IOException {
        this.provider.then(429, RATE_LIMITED, "anthropic-ratelimit-input-tokens-limit", "60000",
                "anthropic-ratelimit-input-tokens-remaining", "0", "anthropic-ratelimit-input-tokens-reset",
                "2026-08-20T10:00:59Z");
        ThrottledClient client = client(new ModelLimits(1000L, 100_000L, 10_000L, null), new RetrySettings(0,
                Duration.ofMillis(500), 2.0, Duration.ofSeconds(30), Jitter.NONE, true, Duration.ofSeconds(60)));
        Instant start = this.clock.instant();
        assertThatExceptionOfType(RetriesExhaustedException.class)
            .isThrownBy(() -> client.exchange(request(REQUEST), this.provider));
        // the reset is when the bucket is full again, 59 s away; the call's few input
        // tokens come back at 1000 a second
        Instant pausedUntil = client.model(MODEL).getLimiter().state().pausedUntil();
        assertThat(pausedUntil).isNotNull();
        assertThat(Duration.between(start, pausedUntil)).isPositive().isLessThan(Duration.ofSeconds(1));
    }

    @Test
    void callCompletesOnceWithItsDurationFromStartToEndRetriesIncluded() throws IOException {
        this.provider.then(429, RATE_LIMITED, "retry-after", "1").then(200, MESSAGE);
        this.client.exchange(request(REQUEST), this.provider);
        this.provider.then(400, "{}");
        this.client.exchange(request(REQUEST), this.provider);
        this.provider.thenIoError("Connection reset").thenIoError("Connection reset").thenIoError("Connection reset");
        assertThatExceptionOfType(RetriesExhaustedException.class)
            .isThrownBy(() -> this.client.exchange(request(REQUEST), this.provider));
        assertThat(this.completions).containsExactly("completed PT1S null", "completed PT0S 400",
                "completed PT1.5S io.github.llmthrottle.RetriesExhaustedException");
    }

    @Test
    void streamReportsItsFirstChunkAndCompletesWhenItEnds() throws IOException {
        this.provider.then(429, RATE_LIMITED, "retry-after", "2")
            .then(200, STREAM_START + "event: error\ndata: " + OVERLOADED + "\n\n", "content-type",
                    "text/event-stream");
        ThrottledResponse<FakeProvider.Response> response = this.client.exchange(request(STREAM_REQUEST),
                this.provider);
        assertThat(this.completions).isEmpty();
        this.clock.advance(Duration.ofMillis(300));
        try (InputStream body = response.body()) {
            body.read();
            assertThat(this.completions).containsExactly("first chunk PT2.3S");
            this.clock.advance(Duration.ofMillis(200));
            body.readAllBytes();
        }
        assertThat(this.completions).containsExactly("first chunk PT2.3S", "completed PT2.5S overloaded_error");
    }

    @Test
    void retriesPausesCircuitTransitionsAndFinalFailuresAreLoggedWithTheProvidersRequestId(CapturedOutput output) {
        LoggingSystem logging = LoggingSystem.get(getClass().getClassLoader());
        logging.setLogLevel("io.github.llmthrottle.retry", LogLevel.DEBUG);
        try {
            assertEveryStepIsLogged(output);
        }
        finally {
            logging.setLogLevel("io.github.llmthrottle.retry", null);
        }
    }

    @Test
    void aModelNameOrAnErrorTypeWithLineBreaksCannotForgeLogLines(CapturedOutput output) {
        String forged = """
                {"type":"error","error":{"type":"rate_limit_error\\nFORGED ERROR","message":"slow down"}}""";
        this.provider.then(429, forged, "retry-after", "1", "request-id", "req_1\r\nFORGED ID")
            .then(429, forged, "retry-after", "1")
            .then(429, forged, "retry-after", "1");
        assertThatExceptionOfType(RetriesExhaustedException.class).isThrownBy(() -> this.client
            .exchange(request(REQUEST.replace("\"opus\"", "\"other\\nFORGED MODEL\"")), this.provider));
        assertThat(output).contains("model 'other\\nFORGED MODEL'")
            .contains("rate_limit_error\\nFORGED ERROR")
            .doesNotContain("\nFORGED");
    }

    private void assertEveryStepIsLogged(CapturedOutput output) {
        this.provider.then(429, RATE_LIMITED, "retry-after", "1", "request-id", "req_first")
            .then(529, OVERLOADED, "request-id", "req_second")
            .then(529, OVERLOADED, "request-id", "req_last");
        assertThatExceptionOfType(RetriesExhaustedException.class)
            .isThrownBy(() -> this.client.exchange(request(REQUEST), this.provider))
            .satisfies((ex) -> assertThat(ex.getRequestId()).isEqualTo("req_last"))
            .withMessageContaining("request id req_last");
        assertThat(output)
            .contains("model 'opus': rate limited (HTTP 429, request id req_first); every call of the"
                    + " model waits PT1S")
            .contains("retry 1 of 2 after HTTP 429 (rate_limited, request id req_first) in PT1S (the server asked for"
                    + " PT1S)")
            .contains("retry 2 of 2 after HTTP 529 (overloaded, request id req_second) in PT1S (back-off)")
            .contains("Call to client 'anthropic', model 'opus' failed: Gave up on");
        assertThat(output.toString().split("Call to client", -1)).hasSize(2);
        for (int i = 0; i < CircuitSettings.DEFAULTS.failureThreshold(); i++) {
            this.provider.thenIoError("Connection reset");
        }
        this.provider.thenIoError("Connection reset");
        assertThatExceptionOfType(LlmThrottleException.class)
            .isThrownBy(() -> this.client.exchange(request(REQUEST), this.provider));
        assertThat(output)
            .contains("Circuit of client 'anthropic', model 'opus': CLOSED -> OPEN; calls fail fast for" + " PT30S");
    }

    @Test
    void rateLimitPausesEveryCallOfTheModelUntilTheServersTime() {
        ThrottledClient noRetries = client(ModelLimits.UNLIMITED, new RetrySettings(0, Duration.ofMillis(500), 2.0,
                Duration.ofSeconds(30), Jitter.NONE, true, Duration.ofSeconds(60)));
        this.provider.then(429, RATE_LIMITED, "retry-after", "5");
        assertThatExceptionOfType(RetriesExhaustedException.class)
            .isThrownBy(() -> noRetries.exchange(request(REQUEST), this.provider));
        assertThat(noRetries.model(MODEL).getLimiter().state().pausedUntil())
            .isEqualTo(this.clock.instant().plusSeconds(5));
    }

    @Test
    void aServerWaitLongerThanMaxRetryAfterPausesTheModelForMaxRetryAfterOnly() {
        ThrottledClient noRetries = client(ModelLimits.UNLIMITED, new RetrySettings(0, Duration.ofMillis(500), 2.0,
                Duration.ofSeconds(30), Jitter.NONE, true, Duration.ofSeconds(60)));
        this.provider.then(429, RATE_LIMITED, "retry-after", "31536000");
        assertThatExceptionOfType(LlmThrottleException.class)
            .isThrownBy(() -> noRetries.exchange(request(REQUEST), this.provider));
        assertThat(noRetries.model(MODEL).getLimiter().state().pausedUntil())
            .isEqualTo(this.clock.instant().plusSeconds(60));
    }

    @Test
    void retryableStatusesExhaustRetriesWithTheLastResponseAsCause() {
        this.provider.then(529, OVERLOADED).then(529, OVERLOADED).then(529, OVERLOADED);
        assertThatExceptionOfType(RetriesExhaustedException.class)
            .isThrownBy(() -> this.client.exchange(request(REQUEST), this.provider))
            .satisfies((ex) -> {
                assertThat(ex.getCause()).isInstanceOf(ProviderResponseException.class);
                assertThat(((ProviderResponseException) ex.getCause()).getStatus()).isEqualTo(529);
            });
        assertThat(this.provider.attempts).isEqualTo(3);
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofMillis(500), Duration.ofMillis(1000));
        assertThat(totals().overloaded()).isEqualTo(3);
        assertThat(totals().failed()).isEqualTo(1);
        assertThat(this.client.model(MODEL).getCircuit().consecutiveFailures()).isEqualTo(3);
    }

    @Test
    void clientErrorIsReturnedAfterOneAttempt() throws IOException {
        this.provider.then(400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\"}}");
        ThrottledResponse<FakeProvider.Response> response = this.client.exchange(request(REQUEST), this.provider);
        assertThat(response.status()).isEqualTo(400);
        assertThat(new String(response.body().readAllBytes(), StandardCharsets.UTF_8))
            .contains("invalid_request_error");
        assertThat(this.provider.attempts).isEqualTo(1);
        assertThat(totals().failed()).isEqualTo(1);
    }

    @Test
    void ioErrorIsRetried() throws IOException {
        this.provider.thenIoError("Connection reset").then(200, MESSAGE);
        assertThat(this.client.exchange(request(REQUEST), this.provider).status()).isEqualTo(200);
        assertThat(this.attempts).containsExactly("IO_ERROR 0", "SUCCESS 200");
    }

    @Test
    void jsonBodySettlesTheReservationWithTheProvidersUsage() throws IOException {
        this.provider.then(200, MESSAGE, "content-type", "application/json");
        this.client.exchange(request(REQUEST), this.provider);
        assertThat(totals().inputTokens()).isEqualTo(12);
        assertThat(totals().outputTokens()).isEqualTo(40);
        // max_tokens 1000 was reserved; 40 were used
        assertThat(this.client.model(MODEL).getLimiter().state().available().outputTokens()).isEqualTo(10_000 - 40);
    }

    @Test
    void aPromptPrefixExpectedInTheProvidersCacheIsNotReservedAndCacheReadsAreShown() throws IOException {
        String system = "You are an agent. " + "s".repeat(30_000);
        this.provider.then(200, """
                {"id":"msg_1","type":"message","usage":{"input_tokens":12,"cache_creation_input_tokens":7500,
                 "cache_read_input_tokens":0,"output_tokens":40}}""", "content-type", "application/json");
        this.client.exchange(request(cachedTurn(false, system, "first question")), this.provider);
        long afterWrite = availableInputTokens();
        assertThat(afterWrite).isEqualTo(100_000 - 7512);
        // the second turn is held open as a stream: its reservation is still taken
        this.provider.then(200, STREAM_START.replace("\"input_tokens\":5", """
                "input_tokens":14,"cache_read_input_tokens":7500,"cache_creation_input_tokens":0""") + STREAM_END,
                "content-type", "text/event-stream");
        ThrottledResponse<FakeProvider.Response> second = this.client
            .exchange(request(cachedTurn(true, system, "second question")), this.provider);
        long reserved = afterWrite - availableInputTokens();
        assertThat(reserved).isPositive().isLessThan(100);
        try (InputStream body = second.body()) {
            body.readAllBytes();
        }
        assertThat(availableInputTokens()).isEqualTo(afterWrite - 14);
        assertThat(totals().inputTokens()).isEqualTo(7512 + 14);
        assertThat(totals().cacheWriteTokens()).isEqualTo(7500);
        assertThat(totals().cacheReadTokens()).isEqualTo(7500);
    }

    @Test
    void aPromptPrefixTheProviderDidNotCacheIsReservedWholeAgain() throws IOException {
        String system = "s".repeat(4_000);
        // a prompt too short to cache: no cache write, no read
        this.provider.then(200, """
                {"id":"msg_1","type":"message","usage":{"input_tokens":1010,"cache_creation_input_tokens":0,
                 "cache_read_input_tokens":0,"output_tokens":40}}""", "content-type", "application/json");
        this.client.exchange(request(cachedTurn(false, system, "q")), this.provider);
        long before = availableInputTokens();
        this.provider.then(200, STREAM_START + STREAM_END, "content-type", "text/event-stream");
        ThrottledResponse<FakeProvider.Response> second = this.client.exchange(request(cachedTurn(true, system, "q")),
                this.provider);
        // the usage of the first call showed no cache write: the prefix is not cacheable
        assertThat(before - availableInputTokens()).isGreaterThan(900);
        second.body().close();
    }

    @Test
    void anEstimatorWhoseObserveThrowsLeaksNeitherTheStreamsPermitNorItsReservation() throws IOException {
        TokenEstimator failing = new TokenEstimator() {

            @Override
            public long estimateInputTokens(String model, LlmRequest request) {
                return 100;
            }

            @Override
            public void observe(String model, LlmRequest request, long actualInputTokens) {
                throw new IllegalStateException("an application's estimator failed");
            }

        };
        ThrottledClient client = client(new ModelLimits(1000L, 100_000L, 10_000L, null), this.retry, failing);
        this.provider.then(200, STREAM_START + STREAM_END, "content-type", "text/event-stream");
        ThrottledResponse<FakeProvider.Response> response = client.exchange(request(STREAM_REQUEST), this.provider);
        try (InputStream body = response.body()) {
            body.readAllBytes();
        }
        LimiterState state = client.model(MODEL).getLimiter().state();
        assertThat(state.inFlight()).isZero();
        // settled from the usage: 5 input and 30 output tokens, not the 100 and 1,000
        // reserved
        assertThat(state.available().inputTokens()).isEqualTo(100_000 - 5);
        assertThat(state.available().outputTokens()).isEqualTo(10_000 - 30);
    }

    @Test
    void aCallTheProviderRefusedLeavesItsPrefixOutOfTheCache() throws IOException {
        String system = "s".repeat(40_000);
        this.provider.then(400, """
                {"type":"error","error":{"type":"invalid_request_error","message":"bad"}}""");
        assertThat(this.client.exchange(request(cachedTurn(false, system, "q")), this.provider).status())
            .isEqualTo(400);
        long before = availableInputTokens();
        this.provider.then(200, STREAM_START + STREAM_END, "content-type", "text/event-stream");
        ThrottledResponse<FakeProvider.Response> second = this.client.exchange(request(cachedTurn(true, system, "q")),
                this.provider);
        // nothing was written: the whole prompt (about 10,000 tokens) is reserved again
        assertThat(before - availableInputTokens()).isGreaterThan(9_000);
        second.body().close();
    }

    /** A turn whose system prompt is marked for the provider's prompt cache. */
    private static String cachedTurn(boolean stream, String system, String question) {
        return """
                {"model":"opus","max_tokens":1000,"stream":%s,
                 "system":[{"type":"text","text":"%s","cache_control":{"type":"ephemeral"}}],
                 "messages":[{"role":"user","content":"%s"}]}""".formatted(stream, system, question);
    }

    @Test
    void theHeadersOfAWholeResponseCountItsUnusedMaxTokensGivenBackOnce() throws IOException {
        // written after the provider settled the call at its 40 output tokens: 3,210 left
        // there, and no more here once the call is settled (not 3,210 + the 960 unused)
        this.provider.then(200, MESSAGE, "content-type", "application/json", "anthropic-ratelimit-output-tokens-limit",
                "10000", "anthropic-ratelimit-output-tokens-remaining", "3210",
                "anthropic-ratelimit-output-tokens-reset", this.clock.instant().plusSeconds(41).toString());
        this.client.exchange(request(REQUEST), this.provider);
        assertThat(availableOutputTokens()).isEqualTo(3210);
    }

    @Test
    void theHeadersOfAStreamCountWhatItReservedAndItsUnusedMaxTokensAreGivenBackWhenItEnds() throws IOException {
        // written before the answer: the provider still counts the 1,000 reserved
        this.provider.then(200, STREAM_START + STREAM_END, "content-type", "text/event-stream",
                "anthropic-ratelimit-output-tokens-limit", "10000", "anthropic-ratelimit-output-tokens-remaining",
                "3210", "anthropic-ratelimit-output-tokens-reset", this.clock.instant().plusSeconds(41).toString());
        ThrottledResponse<FakeProvider.Response> response = this.client.exchange(request(STREAM_REQUEST),
                this.provider);
        assertThat(availableOutputTokens()).isEqualTo(3210);
        try (InputStream body = response.body()) {
            body.readAllBytes();
        }
        assertThat(availableOutputTokens()).isEqualTo(3210 + 1000 - 30);
    }

    @Test
    void theHeadersOfAnErrorCountNothingOfTheRefusedCall() throws IOException {
        // the provider refused the call: 3,210 left there, and no more here once its
        // reservation is given back
        this.provider.then(400, """
                {"type":"error","error":{"type":"invalid_request_error","message":"bad"}}""", "content-type",
                "application/json", "anthropic-ratelimit-output-tokens-limit", "10000",
                "anthropic-ratelimit-output-tokens-remaining", "3210", "anthropic-ratelimit-output-tokens-reset",
                this.clock.instant().plusSeconds(41).toString());
        this.client.exchange(request(REQUEST), this.provider);
        assertThat(availableOutputTokens()).isEqualTo(3210);
    }

    @Test
    void theHeadersOfA429CountNothingOfTheRefusedAttempt() throws IOException {
        // refused with 3,210 left: the retry finds no more here than that and the refill
        Instant start = this.clock.instant();
        this.provider
            .then(429, RATE_LIMITED, "retry-after", "1", "content-type", "application/json",
                    "anthropic-ratelimit-output-tokens-limit", "10000", "anthropic-ratelimit-output-tokens-remaining",
                    "3210", "anthropic-ratelimit-output-tokens-reset", start.plusSeconds(41).toString())
            .then(200, MESSAGE, "content-type", "application/json");
        this.client.exchange(request(REQUEST), this.provider);
        long refilled = Duration.between(start, this.clock.instant()).toMillis() * 10_000 / 60_000;
        // the retry took its 1,000 and gave back the 960 it did not use
        assertThat(availableOutputTokens()).isCloseTo(3210 + refilled - 40, within(2L));
    }

    private long availableOutputTokens() {
        return this.client.model(MODEL).getLimiter().state().available().outputTokens();
    }

    private long availableInputTokens() {
        return this.client.model(MODEL).getLimiter().state().available().inputTokens();
    }

    @Test
    void negativeUsageNeverFailsAPaidSuccess() throws IOException {
        this.provider.then(200, """
                {"id":"msg_1","type":"message","usage":{"input_tokens":-12,"output_tokens":-1}}""");
        assertThat(this.client.exchange(request(REQUEST), this.provider).status()).isEqualTo(200);
        assertThat(totals().inputTokens()).isZero();
        assertThat(totals().succeeded()).isEqualTo(1);
    }

    @Test
    void implausibleUsageHoldsTheModelBackForAMinuteAtMost() throws IOException {
        this.provider.then(200, """
                {"id":"msg_1","type":"message","usage":{"input_tokens":1000000000000,"output_tokens":40}}""");
        this.client.exchange(request(REQUEST), this.provider);
        // 100,000 input tokens per minute: settled as one minute's worth, not 10^12
        assertThat(totals().inputTokens()).isEqualTo(100_000);
        assertThat(this.client.model(MODEL).getLimiter().state().available().inputTokens()).isZero();
    }

    @Test
    void streamIsPassedThroughAndSettledFromItsEventsWhenItEnds() throws IOException {
        this.provider.then(200, STREAM_START + STREAM_END, "content-type", "text/event-stream");
        ThrottledResponse<FakeProvider.Response> response = this.client.exchange(request(STREAM_REQUEST),
                this.provider);
        assertThat(response.isStreamed()).isTrue();
        assertThat(this.attempts).isEmpty();
        try (InputStream body = response.body()) {
            assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(STREAM_START + STREAM_END);
        }
        assertThat(this.attempts).containsExactly("SUCCESS 200");
        assertThat(totals().inputTokens()).isEqualTo(5);
        assertThat(totals().outputTokens()).isEqualTo(30);
        assertThat(this.client.model(MODEL).getLimiter().state().available().outputTokens()).isEqualTo(10_000 - 30);
    }

    @Test
    void rateLimitEventInsideA200StreamIsOneRateLimitedAttemptForTotalsMetricsHealthAndCircuit() throws IOException {
        String stream = STREAM_START + "event: error\ndata: " + RATE_LIMITED + "\n\n";
        this.provider.then(200, stream, "content-type", "text/event-stream", "retry-after", "2");
        ThrottledResponse<FakeProvider.Response> response = this.client.exchange(request(STREAM_REQUEST),
                this.provider);
        response.body().readAllBytes();
        response.close();
        assertThat(this.attempts).containsExactly("RATE_LIMITED 200");
        assertThat(totals().rateLimited()).isEqualTo(1);
        assertThat(totals().attempts()).isEqualTo(1);
        assertThat(this.meters.get("llm.requests").tags("outcome", "rate_limited", "status", "200").timer().count())
            .isEqualTo(1);
        assertThat(this.meters.find("llm.requests").tags("outcome", "success").timer()).isNull();
        assertThat(this.signals.of("anthropic", MODEL).last429()).isNotNull();
        assertThat(this.signals.of("anthropic", MODEL).lastSuccess()).isNull();
        assertThat(this.client.model(MODEL).getLimiter().state().pausedUntil())
            .isEqualTo(this.clock.instant().plusSeconds(2));
    }

    @Test
    void overloadedEventsInsideStreamsOpenTheCircuitAndTheNextCallFailsFastWithoutAnAttempt() throws IOException {
        String stream = STREAM_START + "event: error\ndata: " + OVERLOADED + "\n\n";
        for (int i = 0; i < CircuitSettings.DEFAULTS.failureThreshold(); i++) {
            this.provider.then(200, stream, "content-type", "text/event-stream");
            try (ThrottledResponse<FakeProvider.Response> response = this.client.exchange(request(STREAM_REQUEST),
                    this.provider)) {
                response.body().readAllBytes();
            }
        }
        assertThat(this.client.model(MODEL).getCircuit().state()).isEqualTo(CircuitState.OPEN);
        int sent = this.provider.attempts;
        assertThatExceptionOfType(CircuitOpenException.class)
            .isThrownBy(() -> this.client.exchange(request(REQUEST), this.provider));
        assertThat(this.provider.attempts).isEqualTo(sent);
        assertThat(totals().overloaded()).isEqualTo(5);
        assertThat(totals().rejected()).isEqualTo(1);
        assertThat(this.meters.get("llm.rejections").tags("reason", "circuit_open").counter().count()).isEqualTo(1);
    }

    @Test
    void streamNeitherReadNorClosedGivesBackItsSlotAfterTheReadTimeout() throws IOException {
        this.provider.then(200, STREAM_START + STREAM_END, "content-type", "text/event-stream");
        ThrottledResponse<FakeProvider.Response> response = this.client.exchange(request(STREAM_REQUEST),
                this.provider);
        response.body().readNBytes(10);
        this.clock.advance(Duration.ofMillis(900));
        assertThat(this.client.expireIdleStreams()).isZero();
        assertThat(this.client.model(MODEL).getLimiter().state().inFlight()).isEqualTo(1);
        // the client's read timeout is 1 s
        this.clock.advance(Duration.ofMillis(200));
        assertThat(this.client.expireIdleStreams()).isEqualTo(1);
        assertThat(this.client.model(MODEL).getLimiter().state().inFlight()).isZero();
        assertThat(this.provider.sent().get(0).closed).isTrue();
        assertThat(this.attempts).containsExactly("SUCCESS 200");
        assertThat(this.client.expireIdleStreams()).isZero();
    }

    @Test
    void theBoundOfTrackedModelsComesFromTheLimiterOptions() throws IOException {
        this.options = LimiterOptions.WITHOUT_SLOW_START.withMaxTrackedNames(3);
        ThrottledClient client = client(ModelLimits.UNLIMITED, RetrySettings.DEFAULTS);
        for (int i = 0; i < 5; i++) {
            this.provider.then(200, MESSAGE, "content-type", "application/json");
            client.exchange(request(REQUEST.replace("\"opus\"", "\"made-up-" + i + "\"")), this.provider);
        }
        assertThat(client.getModels()).hasSize(1 + 3)
            .containsKeys(MODEL, "made-up-2", "made-up-3", "made-up-4")
            .doesNotContainKeys("made-up-0", "made-up-1");
    }

    @Test
    void modelsThatAreNotConfiguredAreTrackedUpToABoundTheLeastRecentlyUsedForgotten() throws IOException {
        for (int i = 0; i < 150; i++) {
            this.provider.then(200, MESSAGE, "content-type", "application/json");
            this.client.exchange(request(REQUEST.replace("\"opus\"", "\"made-up-" + i + "\"")), this.provider);
        }
        assertThat(this.client.getModels()).hasSize(1 + LimiterOptions.DEFAULT_MAX_TRACKED_NAMES)
            .containsKey(MODEL)
            .containsKey("made-up-149")
            .doesNotContainKey("made-up-0");
        assertThat(this.meters.find("llm.requests").tags("model", "made-up-0").meters()).isEmpty();
        assertThat(this.meters.find("llm.requests").tags("model", "made-up-149").meters()).isNotEmpty();
        assertThat(this.signals.of("anthropic", "made-up-0").lastSuccess()).isNull();
    }

    @Test
    void streamClosedBeforeItsEndStillEndsItsAttemptOnce() throws IOException {
        this.provider.then(200, STREAM_START + STREAM_END, "content-type", "text/event-stream");
        ThrottledResponse<FakeProvider.Response> response = this.client.exchange(request(STREAM_REQUEST),
                this.provider);
        response.body().readNBytes(10);
        response.close();
        response.close();
        assertThat(this.attempts).containsExactly("SUCCESS 200");
        assertThat(this.client.model(MODEL).getLimiter().state().inFlight()).isZero();
        assertThat(this.provider.sent().get(0).closed).isTrue();
    }

    @Test
    void cancelledCallsKeepTheInterruptAndAreNeitherProviderFailuresNorCapacitySignals() {
        ThrottledClient client = client(new ModelLimits(1000L, 100_000L, 10_000L, 16), this.retry);
        int concurrency = client.model(MODEL).getLimiter().state().concurrencyLimit();
        for (int i = 0; i < CircuitSettings.DEFAULTS.failureThreshold() + 1; i++) {
            this.provider.thenCancelled();
            try {
                assertThatExceptionOfType(InterruptedIOException.class)
                    .isThrownBy(() -> client.exchange(request(REQUEST), this.provider));
                assertThat(Thread.currentThread().isInterrupted()).isTrue();
            }
            finally {
                Thread.interrupted();
            }
        }
        assertThat(this.provider.attempts).isEqualTo(CircuitSettings.DEFAULTS.failureThreshold() + 1);
        assertThat(client.model(MODEL).getCircuit().state()).isEqualTo(CircuitState.CLOSED);
        assertThat(client.model(MODEL).getCircuit().consecutiveFailures()).isZero();
        assertThat(client.model(MODEL).getLimiter().state().concurrencyLimit()).isEqualTo(concurrency);
        assertThat(client.model(MODEL).getLimiter().state().inFlight()).isZero();
        assertThat(this.attempts).isEmpty();
    }

    @Test
    void successWhoseBodyFailsWhileReadIsNotRetriedBecauseItWasBilled() {
        this.provider.thenBrokenBody(200, MESSAGE, "content-type", "application/json").then(200, MESSAGE);
        assertThatExceptionOfType(ResponseBodyReadException.class)
            .isThrownBy(() -> this.client.exchange(request(REQUEST), this.provider))
            .withMessageContaining("not retried");
        assertThat(this.provider.attempts).isEqualTo(1);
        assertThat(this.client.model(MODEL).getLimiter().state().inFlight()).isZero();
        assertThat(totals().failed()).isEqualTo(1);
    }

    private ModelTotals.Snapshot totals() {
        return this.client.model(MODEL).getTotals().snapshot();
    }

    private static ProviderRequest request(String body) {
        return new ProviderRequest("POST", URI.create("https://api.anthropic.com/v1/messages"), Headers.EMPTY,
                body.getBytes(StandardCharsets.UTF_8), false);
    }

    private ThrottledClient client(ModelLimits limits, RetrySettings retry) {
        return client(limits, retry, new CharacterTokenEstimator());
    }

    private ThrottledClient client(ModelLimits limits, RetrySettings retry, TokenEstimator estimator) {
        ClientSettings clientSettings = new ClientSettings("anthropic", ProviderDialect.ANTHROPIC,
                URI.create("https://api.anthropic.com"), null, Duration.ofSeconds(1), Duration.ofSeconds(1), Map.of(),
                MODEL, ModelLimits.UNLIMITED, Map.of(MODEL, new ModelSettings(MODEL, limits, List.of())), retry);
        ThrottleSettings settings = new ThrottleSettings(Map.of("anthropic", clientSettings), 10,
                Duration.ofSeconds(30), null, Map.of());
        LimiterRegistry limiters = new LimiterRegistry(settings.clientLimits(), 10, Duration.ofSeconds(30),
                (tenant) -> null, new LocalBucketStore(this.time), this.time, this.options);
        ThrottleMetrics metrics = new ThrottleMetrics(this.meters, settings, limiters, ThrottleMetricsOptions.DEFAULTS);
        ThrottleObserver recorder = new ThrottleObserver() {

            @Override
            public void onAttempt(String client, String model, Outcome outcome, int status, Duration duration) {
                ThrottledClientTests.this.attempts.add(outcome + " " + status);
            }

            @Override
            public void onCallCompleted(String client, String model, Duration duration, String errorType) {
                ThrottledClientTests.this.completions.add("completed " + duration + " " + errorType);
            }

            @Override
            public void onFirstChunk(String client, String model, Duration sinceCallStart) {
                ThrottledClientTests.this.completions.add("first chunk " + sinceCallStart);
            }

        };
        return new ThrottledClient(clientSettings, limiters, estimator, TenantResolver.NONE,
                new CompositeThrottleObserver(List.of(metrics, this.signals, recorder)), new RequestBodyReader(),
                new UsageReader(), CircuitSettings.DEFAULTS, this.time);
    }

}
