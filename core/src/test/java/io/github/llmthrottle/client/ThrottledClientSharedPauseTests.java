package io.github.llmthrottle.client;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmthrottle.client.ClientSettings.ModelSettings;
import io.github.llmthrottle.limit.LimiterRegistry;
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
import io.github.llmthrottle.store.SharedBucketStore;
import io.github.llmthrottle.store.TokenBucket;
import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A 429's pause with a shared store: the caller (and the retry) hears of the 429 only
 * once the store holds the pause, so that from then on no instance sharing it is admitted
 * before its end.
 */
class ThrottledClientSharedPauseTests {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private static final String MODEL = "opus";

    private static final String REQUEST = """
            {"model":"opus","max_tokens":1000,"messages":[{"role":"user","content":"hello"}]}""";

    private static final String RATE_LIMITED = """
            {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}""";

    private final FakeClock clock = FakeClock.at("2026-08-20T10:00:00Z");

    private final PausingStore store = new PausingStore(this.clock);

    @Test
    void anAsynchronousCallHearsOfA429OnlyOnceTheStoreHoldsItsPause() {
        ThrottledClient client = client();
        AsyncFakeProvider provider = new AsyncFakeProvider().then(429, RATE_LIMITED, "retry-after", "5");
        CompletableFuture<ThrottledResponse<FakeProvider.Response>> call = client.exchangeAsync(request(), provider);
        // its take runs on the time source's thread
        this.clock.advance(Duration.ZERO);
        assertThat(this.store.pauses).as("paused before anything else").hasSize(1);
        assertThat(this.store.pauses.get(0).serverWait()).isEqualTo(Duration.ofSeconds(5));
        assertThat(call).isNotDone();
        this.store.pauses.get(0).held().complete(null);
        // it goes on on the time source's thread, not the store's
        assertThat(call).isNotDone();
        this.clock.advance(Duration.ZERO);
        assertThat(call).isDone();
    }

    @Test
    void aBlockingCallHearsOfA429OnlyOnceTheStoreHoldsItsPause() {
        ThrottledClient client = client();
        FakeProvider provider = new FakeProvider().then(429, RATE_LIMITED, "retry-after", "5");
        Thread[] caller = new Thread[1];
        CompletableFuture<Object> call = new CompletableFuture<>();
        caller[0] = new Thread(() -> {
            try {
                call.complete(client.exchange(request(), provider));
            }
            catch (Throwable ex) {
                call.complete(ex);
            }
        });
        caller[0].start();
        await().atMost(PATIENCE).until(() -> this.store.pauses.size() == 1);
        // parked until the store holds the pause
        await().atMost(PATIENCE).until(() -> caller[0].getState() == Thread.State.WAITING || call.isDone());
        assertThat(call).isNotDone();
        this.store.pauses.get(0).held().complete(null);
        await().atMost(PATIENCE).until(call::isDone);
    }

    private static ProviderRequest request() {
        return new ProviderRequest("POST", URI.create("https://api.anthropic.com/v1/messages"), Headers.EMPTY,
                REQUEST.getBytes(StandardCharsets.UTF_8), false);
    }

    private ThrottledClient client() {
        RetrySettings noRetry = new RetrySettings(0, Duration.ofMillis(500), 2.0, Duration.ofSeconds(30), Jitter.NONE,
                true, Duration.ofSeconds(60));
        ClientSettings clientSettings = new ClientSettings("anthropic", ProviderDialect.ANTHROPIC,
                URI.create("https://api.anthropic.com"), null, Duration.ofSeconds(1), Duration.ofSeconds(1), Map.of(),
                MODEL, ModelLimits.UNLIMITED,
                Map.of(MODEL,
                        new ModelSettings(MODEL, new ModelLimits(1000L, null, null, null), List.of(), null, Map.of())),
                noRetry);
        ThrottleSettings settings = new ThrottleSettings(Map.of("anthropic", clientSettings), 10,
                Duration.ofSeconds(30), null, Map.of());
        LimiterRegistry limiters = new LimiterRegistry(settings.clientLimits(), 10, Duration.ofSeconds(30),
                (tenant) -> null, this.store, this.clock);
        return new ThrottledClient(clientSettings, limiters, new CharacterTokenEstimator(), TenantResolver.NONE,
                new CompositeThrottleObserver(List.of()), LlmThrottleObservations.NONE, new RequestBodyReader(),
                new UsageReader(), CircuitSettings.DEFAULTS, this.clock);
    }

    /**
     * A shared store that grants every take from local buckets and holds each pause until
     * the test says the store holds it.
     */
    static final class PausingStore implements SharedBucketStore {

        final List<Pause> pauses = new CopyOnWriteArrayList<>();

        private final LocalBucketStore local;

        PausingStore(FakeClock clock) {
            this.local = new LocalBucketStore(clock);
        }

        @Override
        public TokenBucket bucket(String key, long limitPerMinute) {
            return this.local.bucket(key, limitPerMinute);
        }

        @Override
        public Take take(List<TokenBucket> buckets, long[] costs, int modelBuckets, Runnable givenBack) {
            return new Take((amounts, given) -> {
            }, 0, 0);
        }

        @Override
        public CompletableFuture<Void> pause(String modelKey, Duration wait, Duration spacing) {
            Pause pause = new Pause(wait, new CompletableFuture<>());
            this.pauses.add(pause);
            return pause.held();
        }

        record Pause(Duration serverWait, CompletableFuture<Void> held) {
        }

    }

}
