package io.github.llmthrottle.client;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpServer;
import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.client.ClientSettings.ModelSettings;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.observation.LlmThrottleObservations;
import io.github.llmthrottle.provider.CharacterTokenEstimator;
import io.github.llmthrottle.provider.Headers;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.provider.RequestBodyReader;
import io.github.llmthrottle.provider.UsageReader;
import io.github.llmthrottle.retry.Jitter;
import io.github.llmthrottle.retry.RetrySettings;
import io.github.llmthrottle.routing.CircuitSettings;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The call pipeline that holds no thread ({@link ThrottledClient#exchangeAsync}), on a
 * fake clock whose timers run only when the test moves it: the same admission, retries,
 * deployments and settlement as a blocking call, the waits scheduled instead of slept,
 * and nothing left taken when the caller cancels.
 */
class ThrottledClientAsyncTests {

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

    private static final String STREAM = """
            event: message_start
            data: {"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}

            event: message_delta
            data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":30}}

            event: message_stop
            data: {"type":"message_stop"}

            """;

    private static final String[] JSON = { "content-type", "application/json" };

    private final FakeClock clock = FakeClock.at("2026-08-20T10:00:00Z");

    private final RetrySettings retry = new RetrySettings(2, Duration.ofMillis(500), 2.0, Duration.ofSeconds(30),
            Jitter.NONE, true, Duration.ofSeconds(60));

    /** Counts every request; the count's real timeout is far longer than any test. */
    private static final CountTokensSettings COUNTING = CountTokensSettings.OFF.withEnabled(true)
        .withMinCharacters(1)
        .withTimeout(Duration.ofSeconds(60));

    private final ModelLimits oneAtATime = new ModelLimits(1000L, 1_000_000L, 100_000L, 1);

    @Test
    void aJsonAnswerIsSettledFromItsBody() {
        ThrottledClient client = client(this.oneAtATime, Map.of());
        AsyncFakeProvider provider = new AsyncFakeProvider().then(200, MESSAGE, JSON);
        CompletableFuture<ThrottledResponse<FakeProvider.Response>> call = client.exchangeAsync(request(REQUEST),
                provider);
        assertThat(call).isCompleted();
        ThrottledResponse<FakeProvider.Response> response = call.join();
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.isStreamed()).isFalse();
        assertThat(new String(response.bufferedBody(), StandardCharsets.UTF_8)).isEqualTo(MESSAGE);
        assertThat(provider.sent.get(0).closed).isTrue();
        assertThat(totals(client).inputTokens()).isEqualTo(12);
        assertThat(totals(client).outputTokens()).isEqualTo(40);
        assertThat(totals(client).succeeded()).isEqualTo(1);
        assertThat(state(client).inFlight()).isZero();
    }

    @Test
    void aRateLimitIsRetriedAfterTheServersWaitScheduledOnTheClock() {
        ThrottledClient client = client(this.oneAtATime, Map.of());
        AsyncFakeProvider provider = new AsyncFakeProvider().then(429, RATE_LIMITED, "retry-after", "2")
            .then(200, MESSAGE, JSON);
        CompletableFuture<ThrottledResponse<FakeProvider.Response>> call = client.exchangeAsync(request(REQUEST),
                provider);
        assertThat(call).isNotDone();
        assertThat(provider.attempts()).isOne();
        assertThat(this.clock.sleeps()).isEmpty();
        this.clock.advance(Duration.ofSeconds(1));
        assertThat(call).isNotDone();
        assertThat(provider.attempts()).isOne();
        this.clock.advance(Duration.ofSeconds(2));
        assertThat(call).isCompleted();
        assertThat(call.join().status()).isEqualTo(200);
        assertThat(provider.attempts()).isEqualTo(2);
        assertThat(totals(client).rateLimited()).isOne();
        assertThat(totals(client).retries()).isOne();
        assertThat(state(client).inFlight()).isZero();
        assertThat(this.clock.sleeps()).isEmpty();
    }

    @Test
    void anIoErrorIsRetriedAfterTheBackOff() {
        ThrottledClient client = client(this.oneAtATime, Map.of());
        AsyncFakeProvider provider = new AsyncFakeProvider().thenIoError("Connection reset").then(200, MESSAGE, JSON);
        CompletableFuture<ThrottledResponse<FakeProvider.Response>> call = client.exchangeAsync(request(REQUEST),
                provider);
        assertThat(call).isNotDone();
        this.clock.advance(Duration.ofMillis(499));
        assertThat(call).isNotDone();
        this.clock.advance(Duration.ofMillis(1));
        assertThat(call).isCompleted();
        assertThat(provider.attempts()).isEqualTo(2);
    }

    @Test
    void exhaustedRetriesFailTheFutureAsABlockingCallFails() {
        ThrottledClient client = client(this.oneAtATime, Map.of());
        AsyncFakeProvider provider = new AsyncFakeProvider().then(529, OVERLOADED)
            .then(529, OVERLOADED)
            .then(529, OVERLOADED);
        CompletableFuture<ThrottledResponse<FakeProvider.Response>> call = client.exchangeAsync(request(REQUEST),
                provider);
        this.clock.advance(Duration.ofMinutes(1));
        assertThat(call).isCompletedExceptionally();
        assertThat(call.handle((response, failure) -> failure).join()).isInstanceOf(RetriesExhaustedException.class);
        assertThat(provider.attempts()).isEqualTo(3);
        assertThat(state(client).inFlight()).isZero();
    }

    @Test
    void aCallCancelledWhileQueuedLeavesTheQueueAndTakesNothing() {
        ThrottledClient client = client(this.oneAtATime, Map.of());
        AsyncFakeProvider provider = new AsyncFakeProvider().thenInFlight().then(200, MESSAGE, JSON);
        CompletableFuture<ThrottledResponse<FakeProvider.Response>> first = client.exchangeAsync(request(REQUEST),
                provider);
        CompletableFuture<ThrottledResponse<FakeProvider.Response>> second = client.exchangeAsync(request(REQUEST),
                provider);
        assertThat(state(client).queued().total()).isOne();
        assertThat(second.cancel(true)).isTrue();
        assertThat(state(client).queued().total()).isZero();
        provider.inFlight.get(0).complete(new FakeProvider.Response(200, MESSAGE, JSON));
        assertThat(first).isCompleted();
        assertThat(state(client).inFlight()).isZero();
        // the cancelled call never reached the provider; the next one is admitted at once
        CompletableFuture<ThrottledResponse<FakeProvider.Response>> third = client.exchangeAsync(request(REQUEST),
                provider);
        assertThat(third).isCompleted();
        assertThat(provider.attempts()).isEqualTo(2);
        assertThat(state(client).inFlight()).isZero();
        assertThat(totals(client).inputTokens()).isEqualTo(24);
    }

    @Test
    void aCallCancelledInFlightCancelsTheExchangeAndGivesBackItsSlot() {
        ThrottledClient client = client(this.oneAtATime, Map.of());
        AsyncFakeProvider provider = new AsyncFakeProvider().thenInFlight().then(200, MESSAGE, JSON);
        CompletableFuture<ThrottledResponse<FakeProvider.Response>> first = client.exchangeAsync(request(REQUEST),
                provider);
        assertThat(state(client).inFlight()).isOne();
        first.cancel(true);
        assertThat(provider.inFlight.get(0)).isCancelled();
        assertThat(state(client).inFlight()).isZero();
        CompletableFuture<ThrottledResponse<FakeProvider.Response>> second = client.exchangeAsync(request(REQUEST),
                provider);
        assertThat(second).isCompleted();
        assertThat(second.join().status()).isEqualTo(200);
        assertThat(state(client).inFlight()).isZero();
        // a cancellation is not the provider's failure
        assertThat(client.model(MODEL).getCircuit().state().name()).isEqualTo("CLOSED");
    }

    @Test
    void aCallCancelledWhileWaitingToRetryDoesNotRetry() {
        ThrottledClient client = client(this.oneAtATime, Map.of());
        AsyncFakeProvider provider = new AsyncFakeProvider().thenIoError("Connection reset").then(200, MESSAGE, JSON);
        CompletableFuture<ThrottledResponse<FakeProvider.Response>> call = client.exchangeAsync(request(REQUEST),
                provider);
        call.cancel(true);
        this.clock.advance(Duration.ofSeconds(5));
        assertThat(provider.attempts()).isOne();
        assertThat(state(client).inFlight()).isZero();
        assertThat(state(client).queued().total()).isZero();
    }

    @Test
    void aStreamIsSettledFromItsChunksAsTheCallerReadsThem() {
        ThrottledClient client = client(this.oneAtATime, Map.of());
        AsyncFakeProvider provider = new AsyncFakeProvider().then(200, STREAM, "content-type", "text/event-stream");
        ThrottledResponse<FakeProvider.Response> response = client.exchangeAsync(request(STREAM_REQUEST), provider)
            .join();
        assertThat(response.isStreamed()).isTrue();
        assertThat(state(client).inFlight()).isOne();
        byte[] bytes = STREAM.getBytes(StandardCharsets.UTF_8);
        for (int offset = 0; offset < bytes.length; offset += 7) {
            ByteBuffer chunk = ByteBuffer.wrap(bytes, offset, Math.min(7, bytes.length - offset));
            response.chunkRead(chunk);
            // the caller's buffer is read, not consumed
            assertThat(chunk.position()).isEqualTo(offset);
        }
        assertThat(totals(client).outputTokens()).isZero();
        response.bodyCompleted();
        assertThat(totals(client).inputTokens()).isEqualTo(5);
        assertThat(totals(client).outputTokens()).isEqualTo(30);
        assertThat(totals(client).succeeded()).isOne();
        assertThat(state(client).inFlight()).isZero();
        response.close();
        assertThat(totals(client).succeeded()).isOne();
    }

    @Test
    void aDeploymentThatFailsHandsTheAttemptToTheNextAtOnce() {
        Map<String, DeploymentSettings> deployments = new LinkedHashMap<>();
        deployments.put("east", new DeploymentSettings("east", URI.create("https://east.example.com"), "east-key",
                Map.of(), this.oneAtATime));
        deployments.put("west", new DeploymentSettings("west", URI.create("https://west.example.com"), "west-key",
                Map.of(), this.oneAtATime));
        ThrottledClient client = client(this.oneAtATime, deployments);
        AsyncFakeProvider provider = new AsyncFakeProvider(true).then(529, OVERLOADED).then(200, MESSAGE, JSON);
        CompletableFuture<ThrottledResponse<FakeProvider.Response>> call = client.exchangeAsync(request(REQUEST),
                provider);
        assertThat(call).isCompleted();
        assertThat(call.join().status()).isEqualTo(200);
        assertThat(provider.targets).containsExactlyInAnyOrder("opus@east", "opus@west");
        assertThat(this.clock.sleeps()).isEmpty();
        for (ThrottledClient.ThrottledModel deployment : client.model(MODEL).getDeployments()) {
            assertThat(deployment.getLimiter().state().inFlight()).isZero();
        }
    }

    @Test
    void aTokenCountIsRetriedAsABlockingOneIsWithoutTouchingTheModel() {
        ThrottledClient client = client(this.oneAtATime, Map.of());
        AsyncFakeProvider provider = new AsyncFakeProvider().then(429, RATE_LIMITED, "retry-after", "1")
            .then(200, "{\"input_tokens\":12}", JSON);
        CompletableFuture<ThrottledResponse<FakeProvider.Response>> call = client.exchangeAsync(
                request(URI.create("https://api.anthropic.com/v1/messages/count_tokens"), REQUEST), provider);
        assertThat(call).isNotDone();
        assertThat(provider.attempts()).isOne();
        // the 429's body was read and released
        assertThat(provider.sent.get(0).closed).isTrue();
        this.clock.advance(Duration.ofSeconds(2));
        assertThat(call).isCompleted();
        assertThat(call.join().status()).isEqualTo(200);
        assertThat(provider.attempts()).isEqualTo(2);
        assertThat(totals(client).calls()).isZero();
        assertThat(totals(client).rateLimited()).isZero();
        assertThat(this.clock.sleeps()).isEmpty();
    }

    @Test
    void theProvidersCountOfTheTokensIsAwaitedWithoutHoldingTheCallersThread() throws Exception {
        try (CountingServer counting = new CountingServer()) {
            ThrottledClient client = client(this.oneAtATime, Map.of(), COUNTING);
            AsyncFakeProvider provider = new AsyncFakeProvider().thenInFlight();
            CompletableFuture<ThrottledResponse<FakeProvider.Response>> call = client
                .exchangeAsync(request(counting.messages(), REQUEST), provider);
            // a blocking count would have held this thread until the count's timeout
            assertThat(call).isNotDone();
            assertThat(provider.attempts()).isZero();
            counting.answer.complete("{\"input_tokens\":7777}");
            await().atMost(Duration.ofSeconds(60)).until(() -> provider.inFlight.size() == 1);
            assertThat(state(client).available().inputTokens()).isEqualTo(1_000_000L - 7777);
            provider.inFlight.get(0).complete(new FakeProvider.Response(200, MESSAGE, JSON));
            assertThat(call.get(60, TimeUnit.SECONDS).status()).isEqualTo(200);
            assertThat(state(client).inFlight()).isZero();
        }
    }

    @Test
    void aCountSlowerThanItsTimeoutOnTheClockLeavesTheEstimateAndACancelledCallSendsNothing() throws Exception {
        try (CountingServer counting = new CountingServer()) {
            ThrottledClient client = client(this.oneAtATime, Map.of(), COUNTING);
            AsyncFakeProvider provider = new AsyncFakeProvider().then(200, MESSAGE, JSON);
            CompletableFuture<ThrottledResponse<FakeProvider.Response>> call = client
                .exchangeAsync(request(counting.messages(), REQUEST), provider);
            CompletableFuture<ThrottledResponse<FakeProvider.Response>> cancelled = client
                .exchangeAsync(request(counting.messages(), REQUEST), provider);
            assertThat(cancelled.cancel(true)).isTrue();
            this.clock.advance(COUNTING.timeout());
            assertThat(call).isCompleted();
            assertThat(call.join().status()).isEqualTo(200);
            assertThat(provider.attempts()).isOne();
            assertThat(state(client).inFlight()).isZero();
            assertThat(state(client).queued().total()).isZero();
        }
    }

    private ModelTotals.Snapshot totals(ThrottledClient client) {
        return client.model(MODEL).getTotals().snapshot();
    }

    private LimiterState state(ThrottledClient client) {
        return client.model(MODEL).getLimiter().state();
    }

    private static ProviderRequest request(String body) {
        return request(URI.create("https://api.anthropic.com/v1/messages"), body);
    }

    private static ProviderRequest request(URI uri, String body) {
        return new ProviderRequest("POST", uri, Headers.EMPTY, body.getBytes(StandardCharsets.UTF_8), false);
    }

    private ThrottledClient client(ModelLimits limits, Map<String, DeploymentSettings> deployments) {
        return client(limits, deployments, CountTokensSettings.OFF);
    }

    private ThrottledClient client(ModelLimits limits, Map<String, DeploymentSettings> deployments,
            CountTokensSettings countTokens) {
        ClientSettings clientSettings = new ClientSettings("anthropic", ProviderDialect.ANTHROPIC,
                URI.create("https://api.anthropic.com"), null, Duration.ofSeconds(1), Duration.ofSeconds(1), Map.of(),
                MODEL, ModelLimits.UNLIMITED,
                Map.of(MODEL, new ModelSettings(MODEL, limits, List.of(), null, deployments)), this.retry)
            .withCountTokens(countTokens);
        ThrottleSettings settings = new ThrottleSettings(Map.of("anthropic", clientSettings), 10,
                Duration.ofSeconds(30), null, Map.of());
        LimiterRegistry limiters = new LimiterRegistry(settings.clientLimits(), 10, Duration.ofSeconds(30),
                (tenant) -> null, new LocalBucketStore(this.clock), this.clock);
        return new ThrottledClient(clientSettings, limiters, new CharacterTokenEstimator(), TenantResolver.NONE,
                new CompositeThrottleObserver(List.of()), LlmThrottleObservations.NONE, new RequestBodyReader(),
                new UsageReader(), CircuitSettings.DEFAULTS, this.clock);
    }

    /**
     * Anthropic's token counting on loopback, answering each count when the test says.
     */
    private static final class CountingServer implements AutoCloseable {

        final CompletableFuture<String> answer = new CompletableFuture<>();

        private final HttpServer server;

        CountingServer() throws IOException {
            this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            this.server.createContext("/v1/messages/count_tokens", (exchange) -> {
                byte[] body = this.answer.join().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("content-type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            this.server.start();
        }

        URI messages() {
            return URI.create("http://127.0.0.1:" + this.server.getAddress().getPort() + "/v1/messages");
        }

        @Override
        public void close() {
            this.answer.complete("{}");
            this.server.stop(0);
        }

    }

}
