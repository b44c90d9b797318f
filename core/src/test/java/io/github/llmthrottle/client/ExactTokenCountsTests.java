package io.github.llmthrottle.client;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.llmthrottle.provider.Headers;
import io.github.llmthrottle.provider.LlmRequest;
import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ExactTokenCountsTests {

    private static final long ESTIMATE = 10_000;

    private final FakeClock clock = FakeClock.at("2026-03-01T10:00:00Z");

    private final List<CompletableFuture<Long>> counts = new ArrayList<>();

    private CompletableFuture<Long> answer = CompletableFuture.completedFuture(1_234L);

    private final TokenCounter counter = (model, request) -> {
        CompletableFuture<Long> count = this.answer;
        this.counts.add(count);
        return count;
    };

    private final CountTokensSettings settings = new CountTokensSettings(true, 20_000, 2, Duration.ofMillis(50));

    private final ExactTokenCounts exactCounts = new ExactTokenCounts(this.settings, this.counter, this.clock);

    @Test
    void theCountOfALargePromptReplacesTheEstimate() {
        assertThat(inputTokens("/v1/messages", text(20_000))).isEqualTo(1_234);
        assertThat(this.counts).hasSize(1);
    }

    @Test
    void aSmallPromptKeepsTheEstimateWithoutAskingTheProvider() {
        assertThat(inputTokens("/v1/messages", text(19_999))).isEqualTo(ESTIMATE);
        assertThat(this.counts).isEmpty();
    }

    @Test
    void aSmallPromptWithAnImageOrADocumentIsCounted() {
        assertThat(inputTokens("/v1/messages", new LlmRequest("m", 64L, false, false, 10, 1_600, 100)))
            .isEqualTo(1_234);
    }

    @Test
    void requestsToOtherEndpointsOfTheClientAreNeverCounted() {
        assertThat(inputTokens("/v1/messages/count_tokens", text(50_000))).isEqualTo(ESTIMATE);
        assertThat(inputTokens("/v1/messages/batches", text(50_000))).isEqualTo(ESTIMATE);
        assertThat(this.counts).isEmpty();
    }

    @Test
    void overItsBudgetACallKeepsTheEstimateWithoutAskingUntilTheBudgetRefills() {
        assertThat(inputTokens("/v1/messages", text(30_000))).isEqualTo(1_234);
        assertThat(inputTokens("/v1/messages", text(30_000))).isEqualTo(1_234);
        assertThat(inputTokens("/v1/messages", text(30_000))).isEqualTo(ESTIMATE);
        assertThat(this.counts).hasSize(2);
        this.clock.advance(Duration.ofSeconds(30));
        assertThat(inputTokens("/v1/messages", text(30_000))).isEqualTo(1_234);
        assertThat(this.counts).hasSize(3);
    }

    @Test
    void aRefusedOrFailedCountKeepsTheEstimate() {
        this.answer = CompletableFuture.failedFuture(new IllegalStateException("count_tokens answered 429"));
        assertThat(inputTokens("/v1/messages", text(30_000))).isEqualTo(ESTIMATE);
        TokenCounter throwing = (model, request) -> {
            throw new IllegalStateException("no connection");
        };
        assertThat(new ExactTokenCounts(this.settings, throwing, this.clock).inputTokens("m", request("/v1/messages"),
                text(30_000), ESTIMATE))
            .isEqualTo(ESTIMATE);
    }

    @Test
    void aCountSlowerThanTheTimeoutKeepsTheEstimateAndIsCancelled() {
        this.answer = new CompletableFuture<>();
        long started = System.nanoTime();
        assertThat(inputTokens("/v1/messages", text(30_000))).isEqualTo(ESTIMATE);
        // the timeout is 50 ms: a generous bound, far below a provider that never answers
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        assertThat(this.counts.get(0)).isCancelled();
    }

    @Test
    void anInterruptedCallerKeepsTheEstimateAndItsInterruptAndTheCountIsCancelled() {
        this.answer = new CompletableFuture<>();
        Thread.currentThread().interrupt();
        try {
            assertThat(inputTokens("/v1/messages", text(30_000))).isEqualTo(ESTIMATE);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        }
        finally {
            Thread.interrupted();
        }
        assertThat(this.counts.get(0)).isCancelled();
    }

    @Test
    void aClientThatDoesNotCountNeverAsks() {
        ExactTokenCounts off = new ExactTokenCounts(this.settings.withEnabled(false), this.counter, this.clock);
        assertThat(off.inputTokens("m", request("/v1/messages"), text(100_000), ESTIMATE)).isEqualTo(ESTIMATE);
        assertThat(ExactTokenCounts.NONE.inputTokens("m", request("/v1/messages"), text(100_000), ESTIMATE))
            .isEqualTo(ESTIMATE);
        assertThat(this.counts).isEmpty();
    }

    @Test
    void withoutHoldingAThreadTheCallGoesOnWhenTheCountComes() {
        this.answer = new CompletableFuture<>();
        CompletableFuture<Long> tokens = inputTokensAsync(text(30_000));
        assertThat(tokens).isNotDone();
        this.answer.complete(4_321L);
        assertThat(tokens).isCompletedWithValue(4_321L);
        // the timeout was called off with the wait
        this.clock.advance(Duration.ofSeconds(1));
        assertThat(tokens).isCompletedWithValue(4_321L);
    }

    @Test
    void withoutHoldingAThreadASlowCountKeepsTheEstimateAtTheTimeoutOnTheClockAndIsCancelled() {
        this.answer = new CompletableFuture<>();
        CompletableFuture<Long> tokens = inputTokensAsync(text(30_000));
        this.clock.advance(Duration.ofMillis(49));
        assertThat(tokens).isNotDone();
        this.clock.advance(Duration.ofMillis(1));
        assertThat(tokens).isCompletedWithValue(ESTIMATE);
        assertThat(this.counts.get(0)).isCancelled();
        assertThat(this.clock.sleeps()).isEmpty();
    }

    @Test
    void withoutHoldingAThreadAFailedCountKeepsTheEstimateAndACancelledWaitCancelsTheCount() {
        this.answer = CompletableFuture.failedFuture(new IllegalStateException("count_tokens answered 429"));
        assertThat(inputTokensAsync(text(30_000))).isCompletedWithValue(ESTIMATE);
        assertThat(inputTokensAsync(text(100))).isCompletedWithValue(ESTIMATE);
        this.answer = new CompletableFuture<>();
        this.clock.advance(Duration.ofMinutes(1));
        CompletableFuture<Long> abandoned = inputTokensAsync(text(30_000));
        abandoned.cancel(true);
        assertThat(this.counts.get(1)).isCancelled();
        assertThat(this.counts).hasSize(2);
    }

    private CompletableFuture<Long> inputTokensAsync(LlmRequest read) {
        return this.exactCounts.inputTokensAsync("m", request("/v1/messages"), read, ESTIMATE);
    }

    private long inputTokens(String path, LlmRequest read) {
        return this.exactCounts.inputTokens("m", request(path), read, ESTIMATE);
    }

    private static LlmRequest text(long characters) {
        return new LlmRequest("m", 64L, false, false, characters, 100);
    }

    private static ProviderRequest request(String path) {
        return new ProviderRequest("POST", URI.create("https://api.anthropic.com" + path), Headers.EMPTY,
                "{}".getBytes(StandardCharsets.UTF_8), false);
    }

}
