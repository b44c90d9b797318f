package io.github.llmthrottle.client;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.client.ClientSettings.ModelSettings;
import io.github.llmthrottle.limit.LimiterOptions;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.metrics.ThrottleMetrics;
import io.github.llmthrottle.metrics.ThrottleMetricsOptions;
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
import io.github.llmthrottle.time.TimeSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The caller of a call comes with its request ({@link ProviderRequest#caller()}): its
 * priority, tenant and max-wait reach admission, the observers and the metrics on
 * whatever thread the call runs, and the thread's {@link ThrottleContext} is not read by
 * the pipeline.
 */
class CallerTests {

    private static final String REQUEST = """
            {"model":"opus","max_tokens":100,"messages":[{"role":"user","content":"hello"}]}""";

    private static final String STREAM_REQUEST = """
            {"model":"opus","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hello"}]}""";

    private static final String MESSAGE = """
            {"id":"msg_1","type":"message","content":[{"type":"text","text":"Hi"}],\
            "usage":{"input_tokens":12,"output_tokens":40}}""";

    private static final String STREAM = """
            event: message_start
            data: {"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}

            event: message_delta
            data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":30}}

            event: message_stop
            data: {"type":"message_stop"}

            """;

    private final TimeSource time = FakeClock.at("2026-08-20T10:00:00Z").advancingWaits();

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    /** What each call's view of the observer saw: priority/tenant per event. */
    private final List<String> seen = new CopyOnWriteArrayList<>();

    private final FakeProvider provider = new FakeProvider();

    private @Nullable String resolvedTenant;

    private final ThrottledClient client = client();

    @Test
    void aCallOnAnotherThreadWithNoContextCarriesItsCallersPriorityAndTenant() throws Exception {
        this.provider.then(200, MESSAGE, "content-type", "application/json");
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            CompletableFuture<Integer> status = CompletableFuture.supplyAsync(() -> {
                assertThat(ThrottleContext.current()).isNull();
                return exchange(request(REQUEST).withCaller(new Caller(Priority.REALTIME, "acme", null, null)));
            }, executor);
            assertThat(status.get(30, TimeUnit.SECONDS)).isEqualTo(200);
        }
        finally {
            executor.shutdownNow();
        }
        assertThat(this.seen).contains("admitted REALTIME acme", "usage acme", "call acme");
        assertThat(this.meters.get("llm.calls").tags("tenant", "acme").timer().count()).isEqualTo(1);
        assertThat(this.meters.get("llm.queue.wait").tags("tenant", "acme", "priority", "realtime").timer().count())
            .isEqualTo(1);
    }

    @Test
    void theThreadsContextIsNotReadByThePipeline() {
        this.provider.then(200, MESSAGE, "content-type", "application/json")
            .then(200, MESSAGE, "content-type", "application/json");
        ThrottleContext onThread = new ThrottleContext("anthropic", "opus", Priority.BATCH, "thread-tenant", 0, null);
        try (ThrottleContext.Scope scope = ThrottleContext.open(onThread)) {
            exchange(request(REQUEST).withCaller(new Caller(Priority.REALTIME, "acme", null, null)));
            exchange(request(REQUEST));
        }
        // the second request names no caller: normal priority, no tenant, whatever the
        // thread holds
        assertThat(this.seen).containsSubsequence("admitted REALTIME acme", "admitted NORMAL null");
        assertThat(this.seen).noneMatch((event) -> event.contains("thread-tenant") || event.contains("BATCH"));
        assertThat(this.meters.find("llm.calls").tags("tenant", "thread-tenant").meters()).isEmpty();
    }

    @Test
    void aStreamsLastEventsCarryItsCallerWhereverTheStreamIsRead() throws Exception {
        this.provider.then(200, STREAM, "content-type", "text/event-stream");
        ThrottledResponse<FakeProvider.Response> response = this.client.exchange(
                request(STREAM_REQUEST).withCaller(new Caller(Priority.BATCH, "acme", null, null)), this.provider);
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            executor.submit(() -> {
                try (response) {
                    return response.body().readAllBytes().length;
                }
            }).get(30, TimeUnit.SECONDS);
        }
        finally {
            executor.shutdownNow();
        }
        assertThat(this.seen).contains("admitted BATCH acme", "usage acme", "attempt acme");
        assertThat(this.meters.get("llm.tokens").tags("tenant", "acme", "type", "output").counter().count())
            .isEqualTo(30);
    }

    @Test
    void theTenantResolverNamesTheTenantOfACallerThatNamesNone() {
        this.resolvedTenant = "resolved";
        this.provider.then(200, MESSAGE, "content-type", "application/json")
            .then(200, MESSAGE, "content-type", "application/json");
        exchange(request(REQUEST).withCaller(new Caller(Priority.REALTIME, null, null, null)));
        exchange(request(REQUEST).withCaller(new Caller(Priority.REALTIME, "acme", null, null)));
        assertThat(this.seen).containsSubsequence("admitted REALTIME resolved", "admitted REALTIME acme");
    }

    @Test
    void aCallersModelCountsARequestWhoseBodyNamesNone() {
        this.provider.then(200, MESSAGE, "content-type", "application/json");
        exchange(request("{\"max_tokens\":100,\"messages\":[]}")
            .withCaller(new Caller(Priority.NORMAL, null, null, "sonnet")));
        assertThat(this.client.findModel("sonnet")).isNotNull();
        assertThat(this.client.findModel("sonnet").getTotals().snapshot().calls()).isEqualTo(1);
    }

    @Test
    void aNegativeMaxWaitIsRefusedWithItsName() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> new Caller(Priority.NORMAL, null, Duration.ofSeconds(-1), null))
            .withMessageContaining("maxWait");
    }

    @Test
    void aContextOfAnotherClientIsNoCallerOfThisOne() {
        ThrottleContext other = new ThrottleContext("openai", "gpt", Priority.BATCH, "acme", 0, null);
        assertThat(Caller.of(other, "anthropic")).isSameAs(Caller.DEFAULT);
        assertThat(Caller.of(other, "openai")).isEqualTo(new Caller(Priority.BATCH, "acme", null, "gpt"));
        assertThat(Caller.of(null, "openai")).isSameAs(Caller.DEFAULT);
    }

    private int exchange(ProviderRequest request) {
        try (ThrottledResponse<FakeProvider.Response> response = this.client.exchange(request, this.provider)) {
            response.body().readAllBytes();
            return response.status();
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static ProviderRequest request(String body) {
        return new ProviderRequest("POST", URI.create("https://api.anthropic.com/v1/messages"), Headers.EMPTY,
                body.getBytes(StandardCharsets.UTF_8), false);
    }

    private ThrottledClient client() {
        RetrySettings retry = new RetrySettings(0, Duration.ofMillis(500), 2.0, Duration.ofSeconds(30), Jitter.NONE,
                true, Duration.ofSeconds(60));
        ClientSettings clientSettings = new ClientSettings("anthropic", ProviderDialect.ANTHROPIC,
                URI.create("https://api.anthropic.com"), null, Duration.ofSeconds(1), Duration.ofSeconds(1), Map.of(),
                "opus", ModelLimits.UNLIMITED,
                Map.of("opus", new ModelSettings("opus", ModelLimits.UNLIMITED, List.of()), "sonnet",
                        new ModelSettings("sonnet", ModelLimits.UNLIMITED, List.of())),
                retry);
        ThrottleSettings settings = new ThrottleSettings(Map.of("anthropic", clientSettings), 10,
                Duration.ofSeconds(30), null, Map.of());
        LimiterRegistry limiters = new LimiterRegistry(settings.clientLimits(), 10, Duration.ofSeconds(30),
                (tenant) -> null, new LocalBucketStore(this.time), this.time, LimiterOptions.WITHOUT_SLOW_START);
        ThrottleMetrics metrics = new ThrottleMetrics(this.meters, settings, limiters,
                new ThrottleMetricsOptions(true, List.of(), List.of()));
        return new ThrottledClient(clientSettings, limiters, new CharacterTokenEstimator(),
                (request) -> this.resolvedTenant, new CompositeThrottleObserver(List.of(metrics, new Recorder(null))),
                new RequestBodyReader(), new UsageReader(), CircuitSettings.DEFAULTS, this.time);
    }

    /** Records the events of each call with the tenant its view was given. */
    private final class Recorder implements ThrottleObserver {

        private final @Nullable String tenant;

        Recorder(@Nullable String tenant) {
            this.tenant = tenant;
        }

        @Override
        public ThrottleObserver forCall(Caller caller) {
            return new Recorder(caller.tenant());
        }

        @Override
        public void onAdmitted(String client, String model, Priority priority, Duration waited) {
            CallerTests.this.seen.add("admitted " + priority + " " + this.tenant);
        }

        @Override
        public void onAttempt(String client, String model, io.github.llmthrottle.retry.Classification.Outcome outcome,
                int status, Duration duration) {
            CallerTests.this.seen.add("attempt " + this.tenant);
        }

        @Override
        public void onUsage(String client, String model, io.github.llmthrottle.provider.Usage usage) {
            CallerTests.this.seen.add("usage " + this.tenant);
        }

        @Override
        public void onCall(String client, String model, CallOutcome outcome, Duration duration) {
            CallerTests.this.seen.add("call " + this.tenant);
        }

    }

}
