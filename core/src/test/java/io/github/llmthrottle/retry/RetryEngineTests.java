package io.github.llmthrottle.retry;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Supplier;

import io.github.llmthrottle.provider.Headers;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.RetryAfterTooLongException;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.SleeplessTimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class RetryEngineTests {

    private static final RetrySettings NO_JITTER = RetrySettings.DEFAULTS.withJitter(Jitter.NONE);

    private FakeClock clock = FakeClock.at("2023-09-29T16:26:37Z");

    private final List<Integer> retryCounts = new ArrayList<>();

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    @DisplayName("a 200 is returned after one attempt, no sleeps")
    void returnsSuccessAtOnce() throws IOException {
        Integer status = engine(NO_JITTER).execute("anthropic", "claude", script(response(200)));
        assertThat(status).isEqualTo(200);
        assertThat(this.retryCounts).containsExactly(0);
        assertThat(this.clock.sleeps()).isEmpty();
    }

    @Test
    @DisplayName("503 with a date 5 s ahead, 503 with retry-after 1.234, then 200 sleeps exactly [5 s, 1.234 s]")
    void sleepsExactlyTheServerWaits() throws IOException {
        this.clock = FakeClock.at("2015-10-21T07:27:55Z");
        Integer status = engine(NO_JITTER.withMaxRetries(2)).execute("openai", "gpt",
                script(response(503, "Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT"),
                        response(503, "Retry-After", "1.234"), response(200)));
        assertThat(status).isEqualTo(200);
        assertThat(this.retryCounts).containsExactly(0, 1, 2);
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofSeconds(5), Duration.ofMillis(1234));
    }

    @Test
    @DisplayName("a Retry-After date 5 s ahead, then 200, sleeps [5 s]")
    void sleepsUntilTheDate() throws IOException {
        this.clock = FakeClock.at("2015-10-21T07:27:55Z");
        engine(NO_JITTER).execute("openai", "gpt",
                script(response(503, "Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT"), response(200)));
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofSeconds(5));
    }

    @Test
    @DisplayName("retry-after-ms 10 sleeps 10 ms")
    void sleepsRetryAfterMs() throws IOException {
        engine(NO_JITTER.withMaxRetries(1)).execute("openai", "gpt",
                script(response(503, "Retry-After-Ms", "10"), response(200)));
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofMillis(10));
    }

    @Test
    @DisplayName("retry-after-ms 50 beats retry-after 2")
    void prefersRetryAfterMs() throws IOException {
        engine(NO_JITTER.withMaxRetries(1)).execute("openai", "gpt",
                script(response(503, "Retry-After-Ms", "50", "Retry-After", "2"), response(200)));
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofMillis(50));
    }

    @Test
    @DisplayName("an unparseable Retry-After falls back to back-off")
    void backsOffOnUnparseableRetryAfter() throws IOException {
        engine(NO_JITTER.withMaxRetries(1)).execute("openai", "gpt",
                script(response(503, "Retry-After", "not-a-date-or-number"), response(200)));
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofMillis(500));
        this.clock = FakeClock.at("2023-09-29T16:26:37Z");
        engine(RetrySettings.DEFAULTS.withMaxRetries(1)).execute("openai", "gpt",
                script(response(503, "Retry-After", "not-a-date-or-number"), response(200)));
        assertThat(this.clock.sleeps()).singleElement()
            .satisfies((sleep) -> assertThat(sleep).isBetween(Duration.ZERO, Duration.ofMillis(500)));
    }

    @Test
    @DisplayName("always 503 with maxRetries 3 makes 4 attempts and gives up with the 503 as cause")
    void givesUpAfterMaxRetries() {
        assertThatExceptionOfType(RetriesExhaustedException.class).isThrownBy(
                () -> engine(NO_JITTER.withMaxRetries(3)).execute("anthropic", "claude", always(() -> response(503))))
            .satisfies((ex) -> {
                assertThat(ex.getCause()).isInstanceOf(HttpServerErrorException.class);
                assertThat(((HttpServerErrorException) ex.getCause()).getStatusCode().value()).isEqualTo(503);
                assertThat(ex.getClient()).isEqualTo("anthropic");
                assertThat(ex.getModel()).isEqualTo("claude");
                assertThat(ex.getRetryAfter()).isNull();
                assertThat(ex.getMessage()).contains("4 attempts").contains("HTTP 503");
            });
        assertThat(this.retryCounts).containsExactly(0, 1, 2, 3);
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofMillis(500), Duration.ofSeconds(1),
                Duration.ofSeconds(2));
    }

    @Test
    @DisplayName("with full jitter each sleep is within [0, delay * 2^(k-1)]")
    void fullJitterSleepsWithinBounds() {
        assertThatExceptionOfType(RetriesExhaustedException.class)
            .isThrownBy(() -> engine(RetrySettings.DEFAULTS.withMaxRetries(3)).execute("anthropic", "claude",
                    always(() -> response(503))));
        List<Duration> sleeps = this.clock.sleeps();
        assertThat(sleeps).hasSize(3);
        assertThat(sleeps.get(0)).isBetween(Duration.ZERO, Duration.ofMillis(500));
        assertThat(sleeps.get(1)).isBetween(Duration.ZERO, Duration.ofSeconds(1));
        assertThat(sleeps.get(2)).isBetween(Duration.ZERO, Duration.ofSeconds(2));
    }

    @Test
    @DisplayName("always 503 with maxRetries 6 and an 8 s cap: sleeps 5 and 6 are 8 s")
    void backOffIsCapped() {
        RetrySettings settings = new RetrySettings(6, Duration.ofMillis(500), 2.0, Duration.ofSeconds(8), Jitter.NONE,
                true, Duration.ofSeconds(60));
        assertThatExceptionOfType(RetriesExhaustedException.class)
            .isThrownBy(() -> engine(settings).execute("anthropic", "claude", always(() -> response(503))));
        assertThat(this.retryCounts).hasSize(7);
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofMillis(500), Duration.ofSeconds(1),
                Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(8), Duration.ofSeconds(8));
    }

    @Test
    @DisplayName("an I/O error is retried after back-off")
    void retriesIoErrors() throws IOException {
        Deque<Object> steps = new ArrayDeque<>(List.of(new SocketException("Connection reset"), response(200)));
        Integer status = engine(NO_JITTER.withMaxRetries(2)).execute("openai", "gpt", (retryCount) -> {
            this.retryCounts.add(retryCount);
            Object step = steps.removeFirst();
            if (step instanceof IOException ex) {
                throw ex;
            }
            return respond((Response) step);
        });
        assertThat(status).isEqualTo(200);
        assertThat(this.retryCounts).containsExactly(0, 1);
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofMillis(500));
    }

    @Test
    @DisplayName("I/O errors on every attempt give up with the last I/O error as cause")
    void givesUpOnRepeatedIoErrors() {
        assertThatExceptionOfType(RetriesExhaustedException.class)
            .isThrownBy(() -> engine(NO_JITTER.withMaxRetries(2)).execute("openai", "gpt", (retryCount) -> {
                this.retryCounts.add(retryCount);
                throw new SocketException("Connection reset " + retryCount);
            }))
            .satisfies((ex) -> {
                assertThat(ex.getCause()).isInstanceOf(SocketException.class).hasMessage("Connection reset 2");
                assertThat(ex.getMessage()).contains("I/O error");
            });
        assertThat(this.retryCounts).containsExactly(0, 1, 2);
    }

    @ParameterizedTest
    @ValueSource(ints = { 0, 2, 4 })
    @DisplayName("500 n times then 200 with maxRetries 4 succeeds after n retries")
    void reportsRetriesTaken(int failures) throws IOException {
        List<Response> responses = new ArrayList<>();
        for (int i = 0; i < failures; i++) {
            responses.add(response(500));
        }
        responses.add(response(200));
        Integer status = engine(NO_JITTER).execute("openai", "gpt", script(responses.toArray(Response[]::new)));
        assertThat(status).isEqualTo(200);
        assertThat(this.retryCounts).hasSize(failures + 1).last().isEqualTo(failures);
    }

    @Test
    @DisplayName("Anthropic 429 with retry-after 23 sleeps 23 s (plus at most 0.5 s of jitter)")
    void honoursRetryAfterWithJitterOnTop() throws IOException {
        engine(RetrySettings.DEFAULTS).execute("anthropic", "claude",
                script(response(429, "retry-after", "23"), response(200)));
        assertThat(this.clock.sleeps()).singleElement()
            .satisfies((sleep) -> assertThat(sleep).isBetween(Duration.ofSeconds(23), Duration.ofMillis(23_500)));
    }

    @Test
    @DisplayName("Anthropic 429 asking for 505 s fails at once above max-retry-after 60 s")
    void failsFastWhenTheServerWaitIsTooLong() {
        assertThatExceptionOfType(RetryAfterTooLongException.class)
            .isThrownBy(() -> engine(RetrySettings.DEFAULTS).execute("anthropic", "claude",
                    always(() -> response(429, "retry-after", "505", "x-should-retry", "true"))))
            .satisfies((ex) -> {
                assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(505));
                assertThat(ex.getMessage()).contains("505s").contains("HTTP 429").contains("60s");
                assertThat(ex.getCause()).isInstanceOf(HttpClientErrorException.class);
            });
        assertThat(this.retryCounts).containsExactly(0);
        assertThat(this.clock.sleeps()).isEmpty();
    }

    @Test
    void aCallersOwnBudgetLowersMaxRetryAfterForThatCallOnly() throws IOException {
        RetryEngine engine = engine(NO_JITTER);
        assertThatExceptionOfType(RetryAfterTooLongException.class)
            .isThrownBy(() -> engine.execute("anthropic", "opus", Duration.ofSeconds(5),
                    always(() -> response(529, "retry-after", "12"))))
            .satisfies((ex) -> assertThat(ex.getMessage()).contains("12s").contains("max-retry-after 5s"));
        assertThat(this.clock.sleeps()).isEmpty();
        engine.execute("anthropic", "opus", Duration.ofSeconds(90),
                script(response(529, "retry-after", "12"), response(200)));
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofSeconds(12));
    }

    @Test
    void aRetryWhoseWaitWouldOutlastTheCallTimeoutFailsAtOnceSayingSo() {
        // a 20 s call timeout keeps 5 s for the response: waits must end by 15 s
        CallDeadline deadline = CallDeadline.of(Duration.ofSeconds(20), this.clock.nanoTime());
        assertThatExceptionOfType(RetriesExhaustedException.class)
            .isThrownBy(() -> engine(NO_JITTER).execute("anthropic", "opus", null, deadline,
                    script(response(529, "retry-after", "10"), response(529, "retry-after", "10"), response(200))))
            .satisfies((ex) -> {
                assertThat(ex.getMessage()).contains("after 2 attempts")
                    .contains("in 10s")
                    .contains("call timeout of 20s")
                    .contains("HTTP 529");
                assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(10));
                assertThat(ex.getCause()).isInstanceOf(HttpServerErrorException.class);
            });
        assertThat(this.retryCounts).containsExactly(0, 1);
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofSeconds(10));
    }

    @Test
    void retriesThatFitInTheCallTimeoutRunAsWithoutOne() throws IOException {
        CallDeadline deadline = CallDeadline.of(Duration.ofSeconds(20), this.clock.nanoTime());
        Integer status = engine(NO_JITTER).execute("anthropic", "opus", null, deadline,
                script(response(529, "retry-after", "7"), response(529, "retry-after", "8"), response(200)));
        assertThat(status).isEqualTo(200);
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofSeconds(7), Duration.ofSeconds(8));
    }

    @Test
    @DisplayName("retry-after 120 is honoured with max-retry-after 120 s")
    void honoursWaitAtTheLimit() throws IOException {
        engine(NO_JITTER.withMaxRetryAfter(Duration.ofSeconds(120))).execute("openai", "gpt",
                script(response(429, "retry-after", "120"), response(200)));
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofSeconds(120));
    }

    @Test
    @DisplayName("above max-retry-after 120 s, 121 s, 120001 ms, and 121 s with x-should-retry true fail at once")
    void failsFastJustAboveTheLimit() {
        RetryEngine engine = engine(NO_JITTER.withMaxRetryAfter(Duration.ofSeconds(120)));
        for (Response response : List.of(response(429, "retry-after", "121"), response(429, "retry-after-ms", "120001"),
                response(429, "retry-after", "121", "x-should-retry", "true"))) {
            this.retryCounts.clear();
            assertThatExceptionOfType(RetryAfterTooLongException.class)
                .isThrownBy(() -> engine.execute("openai", "gpt", always(() -> response)));
            assertThat(this.retryCounts).containsExactly(0);
        }
        assertThat(this.clock.sleeps()).isEmpty();
    }

    @Test
    @DisplayName("Groq 429 with retry-after 2 and an exhausted 7.66s token reset sleeps 2 s")
    void retryAfterBeatsResetInTheEngine() throws IOException {
        engine(NO_JITTER).execute("groq", "llama", script(response(429, "retry-after", "2",
                "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "7.66s"), response(200)));
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofSeconds(2));
    }

    @Test
    @DisplayName("without retry-after, the exhausted dimension's reset 1.146s is the sleep")
    void sleepsUntilTheExhaustedReset() throws IOException {
        engine(NO_JITTER).execute("openai", "gpt",
                script(response(429, "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "1.146s"),
                        response(200)));
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofMillis(1146));
    }

    @Test
    @DisplayName("Groq daily request budget exhausted (reset 179.56 s) fails fast")
    void failsFastOnALongReset() {
        assertThatExceptionOfType(RetryAfterTooLongException.class)
            .isThrownBy(() -> engine(NO_JITTER).execute("groq", "llama",
                    always(() -> response(429, "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests",
                            "2m59.56s"))))
            .satisfies((ex) -> assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofMillis(179_560)));
    }

    @Test
    @DisplayName("Azure 429 with retry-after-ms 3000 sleeps 3 s")
    void sleepsAzureMillis() throws IOException {
        engine(NO_JITTER).execute("azure", "gpt", script(response(429, "retry-after-ms", "3000"), response(200)));
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofSeconds(3));
    }

    @Test
    @DisplayName("Azure 503 with a Retry-After date in the past retries at once, even with jitter")
    void retriesAtOnceForAPastDate() throws IOException {
        engine(RetrySettings.DEFAULTS).execute("azure", "gpt",
                script(response(503, "Retry-After", "Fri, 29 Sep 2023 16:20:00 GMT"), response(200)));
        assertThat(this.clock.sleeps()).containsExactly(Duration.ZERO);
    }

    @Test
    void ignoresServerWaitsWhenTold() throws IOException {
        RetrySettings settings = new RetrySettings(4, Duration.ofMillis(500), 2.0, Duration.ofSeconds(30), Jitter.NONE,
                false, Duration.ofSeconds(60));
        engine(settings).execute("anthropic", "claude", script(response(429, "retry-after", "505"), response(200)));
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofMillis(500));
    }

    @Test
    void reportsTheLastServerWaitWhenRetriesRunOut() {
        assertThatExceptionOfType(RetriesExhaustedException.class)
            .isThrownBy(() -> engine(NO_JITTER.withMaxRetries(1)).execute("anthropic", "claude",
                    script(response(429, "retry-after", "3"), response(429, "retry-after", "7"))))
            .satisfies((ex) -> assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(7)));
    }

    @Test
    void reportsExhaustionRatherThanATooLongWaitOnTheLastAttempt() {
        assertThatExceptionOfType(RetriesExhaustedException.class)
            .isThrownBy(() -> engine(NO_JITTER.withMaxRetries(0)).execute("anthropic", "claude",
                    always(() -> response(429, "retry-after", "505"))))
            .satisfies((ex) -> assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(505)));
        assertThat(this.retryCounts).containsExactly(0);
    }

    @Test
    @DisplayName("non-retryable responses are returned by the attempt after one call")
    void returnsNonRetryableOutcomesUntouched() throws IOException {
        for (int status : new int[] { 400, 401, 402, 403, 404, 413, 422 }) {
            this.retryCounts.clear();
            assertThat(engine(NO_JITTER).execute("anthropic", "claude", always(() -> response(status))))
                .isEqualTo(status);
            assertThat(this.retryCounts).containsExactly(0);
        }
        assertThat(this.clock.sleeps()).isEmpty();
    }

    @Test
    void letsOtherExceptionsThroughUntouched() {
        IllegalStateException failure = new IllegalStateException("boom");
        assertThatExceptionOfType(IllegalStateException.class)
            .isThrownBy(() -> engine(NO_JITTER).execute("anthropic", "claude", (retryCount) -> {
                this.retryCounts.add(retryCount);
                throw failure;
            }))
            .isSameAs(failure);
        assertThat(this.retryCounts).containsExactly(0);
        AssertionError error = new AssertionError("bug");
        assertThatExceptionOfType(AssertionError.class)
            .isThrownBy(() -> engine(NO_JITTER).execute("anthropic", "claude", (retryCount) -> {
                throw error;
            }))
            .isSameAs(error);
    }

    @Test
    void stopsWhenInterruptedWhileWaitingAndKeepsTheFlag() {
        assertThatExceptionOfType(InterruptedIOException.class)
            .isThrownBy(() -> engine(NO_JITTER).execute("anthropic", "claude", (retryCount) -> {
                this.retryCounts.add(retryCount);
                Thread.currentThread().interrupt();
                return respond(response(529));
            }))
            .satisfies((ex) -> {
                assertThat(ex.getMessage()).contains("Interrupted").contains("anthropic").contains("claude");
                assertThat(ex.getCause()).isInstanceOf(HttpServerErrorException.class);
            });
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
        assertThat(this.retryCounts).containsExactly(0);
        assertThat(this.clock.sleeps()).isEmpty();
    }

    @Test
    void stopsWhenInterruptedBeforeAZeroWait() {
        assertThatExceptionOfType(InterruptedIOException.class)
            .isThrownBy(() -> new RetryEngine(NO_JITTER, new SleeplessTimeSource((duration) -> {
            }), BackOffTests.fixed(0.5)).execute("azure", "gpt", (retryCount) -> {
                Thread.currentThread().interrupt();
                return respond(response(503, "retry-after", "0"));
            }));
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    @Test
    void doesNotRetryAnIoErrorOnAnInterruptedThread() {
        IOException failure = new IOException("Request was interrupted");
        assertThatExceptionOfType(IOException.class)
            .isThrownBy(() -> engine(NO_JITTER).execute("anthropic", "claude", (retryCount) -> {
                this.retryCounts.add(retryCount);
                Thread.currentThread().interrupt();
                throw failure;
            }))
            .isSameAs(failure);
        assertThat(this.retryCounts).containsExactly(0);
    }

    @Test
    void tellsTheListenerAboutRetriesAndServerWaits() throws IOException {
        List<String> events = new ArrayList<>();
        RetryListener listener = new RetryListener() {

            @Override
            public void onRetry(String client, String model, Classification classification, Duration wait,
                    int retryCount) {
                events.add("retry " + client + "/" + model + " " + classification.reason() + " " + wait + " #"
                        + retryCount);
            }

            @Override
            public void onServerWait(String client, String model, Duration wait) {
                events.add("server " + client + "/" + model + " " + wait);
            }

        };
        RetryEngine engine = new RetryEngine(NO_JITTER, this.clock, BackOffTests.fixed(0.5), listener);
        engine.execute("anthropic", "claude",
                script(response(429, "retry-after", "2"), response(529), response(503), response(200)));
        assertThat(events).containsExactly("server anthropic/claude PT2S", "retry anthropic/claude 429 PT2S #1",
                "retry anthropic/claude 529 PT1S #2", "retry anthropic/claude 503 PT2S #3");
    }

    @Test
    void survivesAFailingListener() throws IOException {
        RetryListener listener = new RetryListener() {

            @Override
            public void onRetry(String client, String model, Classification classification, Duration wait,
                    int retryCount) {
                throw new IllegalStateException("metrics down");
            }

        };
        Integer status = new RetryEngine(NO_JITTER, this.clock, BackOffTests.fixed(0.5), listener).execute("a", "m",
                script(response(503), response(200)));
        assertThat(status).isEqualTo(200);
    }

    @Test
    void isSafeToShareBetweenCalls() throws IOException {
        RetryEngine engine = engine(NO_JITTER);
        engine.execute("a", "m", script(response(503), response(200)));
        assertThat(engine.execute("a", "m", script(response(200)))).isEqualTo(200);
        assertThat(this.clock.sleeps()).containsExactly(Duration.ofMillis(500));
        assertThat(engine.getSettings()).isEqualTo(NO_JITTER);
    }

    @Test
    void throttlingFailuresAreLlmThrottleExceptions() {
        assertThatExceptionOfType(LlmThrottleException.class)
            .isThrownBy(() -> engine(NO_JITTER.withMaxRetries(0)).execute("a", "m", always(() -> response(503))));
    }

    @Test
    void rejectsANonRetryableClassificationInTheException() {
        Classification success = new ResponseClassifier(ProviderDialect.GENERIC, this.clock).classify(200,
                Headers.EMPTY, null);
        assertThatExceptionOfType(IllegalArgumentException.class)
            .isThrownBy(() -> new RetryableResponseException(success, new IOException()));
    }

    private RetryEngine engine(RetrySettings settings) {
        return new RetryEngine(settings, this.clock, BackOffTests.fixed(0.5));
    }

    private RetryEngine.Attempt<Integer> script(Response... responses) {
        Deque<Response> queue = new ArrayDeque<>(List.of(responses));
        return (retryCount) -> {
            this.retryCounts.add(retryCount);
            return respond(queue.removeFirst());
        };
    }

    private RetryEngine.Attempt<Integer> always(Supplier<Response> response) {
        return (retryCount) -> {
            this.retryCounts.add(retryCount);
            return respond(response.get());
        };
    }

    /** What the HTTP interceptor does with one response. */
    private Integer respond(Response response) {
        ResponseClassifier classifier = new ResponseClassifier(ProviderDialect.OPENAI, this.clock);
        byte[] body = response.body.getBytes(StandardCharsets.UTF_8);
        Classification classification = classifier.classify(response.status, response.headers::getOrEmpty, body);
        if (classification.retryable()) {
            HttpStatusCode status = HttpStatusCode.valueOf(response.status);
            throw new RetryableResponseException(classification, status.is4xxClientError()
                    ? HttpClientErrorException.create(status, "", response.headers, body, StandardCharsets.UTF_8)
                    : HttpServerErrorException.create(status, "", response.headers, body, StandardCharsets.UTF_8));
        }
        return response.status;
    }

    private static Response response(int status, String... headerPairs) {
        HttpHeaders headers = new HttpHeaders();
        for (int i = 0; i < headerPairs.length; i += 2) {
            headers.add(headerPairs[i], headerPairs[i + 1]);
        }
        return new Response(status, headers, "");
    }

    private record Response(int status, HttpHeaders headers, String body) {

    }

}
