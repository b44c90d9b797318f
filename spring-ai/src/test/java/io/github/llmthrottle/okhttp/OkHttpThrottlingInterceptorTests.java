package io.github.llmthrottle.okhttp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.HalfwayDownload;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottleObserver;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.HeldSlot;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.retry.ResponseBodyReadException;
import io.github.llmthrottle.routing.CircuitState;
import io.github.llmthrottle.routing.ModelCircuit;
import io.github.llmthrottle.springai.autoconfigure.LlmThrottleSpringAiAutoConfiguration;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.equalToJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The OkHttp interceptor on a plain {@code OkHttpClient}, against real HTTP servers on
 * loopback: what it sends, what it hands back, and what it leaves alone.
 */
class OkHttpThrottlingInterceptorTests {

    private static final MediaType JSON = MediaType.get("application/json");

    private static final String BODY = """
            {"model":"claude-opus-4-7","max_tokens":64,"messages":[{"role":"user","content":"Hello"}]}""";

    private static final String STREAM_BODY = """
            {"model":"claude-opus-4-7","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"Hello"}]}""";

    private static final String SUCCESS = """
            {"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],
             "model":"claude-opus-4-7","stop_reason":"end_turn","usage":{"input_tokens":9,"output_tokens":2}}""";

    private static final String EVENTS = """
            event: message_start
            data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-opus-4-7","usage":{"input_tokens":9,"output_tokens":1}}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}

            event: message_delta
            data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}

            event: message_stop
            data: {"type":"message_stop"}

            """;

    private static final String OVERLOADED = """
            {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}""";

    private final WireMockServer server = new WireMockServer(wireMockConfig().dynamicPort());

    private final WireMockServer otherServer = new WireMockServer(wireMockConfig().dynamicPort());

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.server.start();
        this.otherServer.start();
        this.runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                            LlmThrottleAutoConfiguration.class, LlmThrottleSpringAiAutoConfiguration.class))
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=http://localhost:" + this.server.port(),
                    "llm.throttle.retry.max-retries=2", "llm.throttle.retry.delay=1ms",
                    "llm.throttle.retry.max-delay=5ms");
    }

    @AfterEach
    void stop() {
        this.server.stop();
        this.otherServer.stop();
    }

    @Test
    void responseTellsTheSdkNotToRetryAndCarrierHeadersNeverReachTheProvider() {
        this.server.stubFor(post(urlEqualTo("/v1/messages"))
            .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(SUCCESS)));
        this.runner.run((context) -> {
            Request request = messages(this.server, BODY)
                .header(OkHttpThrottlingInterceptor.PRIORITY_HEADER, "REALTIME")
                .header(OkHttpThrottlingInterceptor.TENANT_HEADER, "acme")
                .build();
            try (Response response = client(context).newCall(request).execute()) {
                assertThat(response.code()).isEqualTo(200);
                assertThat(response.header("x-should-retry")).isEqualTo("false");
                assertThat(response.body().string()).isEqualTo(SUCCESS);
            }
            this.server.verify(postRequestedFor(urlEqualTo("/v1/messages"))
                .withHeader(OkHttpThrottlingInterceptor.PRIORITY_HEADER, absent())
                .withHeader(OkHttpThrottlingInterceptor.TENANT_HEADER, absent()));
            ModelTotals.Snapshot totals = totals(context);
            assertThat(totals.calls()).isEqualTo(1);
            assertThat(totals.inputTokens()).isEqualTo(9);
            assertThat(totals.outputTokens()).isEqualTo(2);
        });
    }

    @Test
    void carrierHeadersOfAnotherClientAreIgnoredAndRemoved() {
        this.server.stubFor(post(urlEqualTo("/v1/messages"))
            .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(SUCCESS)));
        List<Priority> admitted = new CopyOnWriteArrayList<>();
        this.runner.withBean(ThrottleObserver.class, () -> new ThrottleObserver() {

            @Override
            public void onAdmitted(String client, String model, Priority priority, Duration waited) {
                admitted.add(priority);
            }

        }).run((context) -> {
            Request.Builder request = messages(this.server, BODY)
                .header(OkHttpThrottlingInterceptor.PRIORITY_HEADER, "REALTIME")
                .header(OkHttpThrottlingInterceptor.MAX_WAIT_HEADER, "PT5S");
            try (Response response = client(context)
                .newCall(request.header(OkHttpThrottlingInterceptor.CLIENT_HEADER, "openai").build())
                .execute()) {
                assertThat(response.code()).isEqualTo(200);
            }
            try (Response response = client(context)
                .newCall(request.header(OkHttpThrottlingInterceptor.CLIENT_HEADER, "anthropic").build())
                .execute()) {
                assertThat(response.code()).isEqualTo(200);
            }
            assertThat(admitted).containsExactly(Priority.NORMAL, Priority.REALTIME);
            this.server.verify(2,
                    postRequestedFor(urlEqualTo("/v1/messages"))
                        .withHeader(OkHttpThrottlingInterceptor.CLIENT_HEADER, absent())
                        .withHeader(OkHttpThrottlingInterceptor.MAX_WAIT_HEADER, absent())
                        .withHeader(OkHttpThrottlingInterceptor.PRIORITY_HEADER, absent()));
        });
    }

    @Test
    void requestToAnotherHostPassesThroughUntouched() {
        this.otherServer.stubFor(post(urlEqualTo("/v1/messages")).willReturn(
                aResponse().withStatus(529).withHeader("Content-Type", "application/json").withBody(OVERLOADED)));
        this.runner.run((context) -> {
            try (Response response = client(context).newCall(messages(this.otherServer, BODY).build()).execute()) {
                assertThat(response.code()).isEqualTo(529);
                assertThat(response.header("x-should-retry")).isNull();
            }
            this.otherServer.verify(1, postRequestedFor(urlEqualTo("/v1/messages")));
            assertThat(context.getBean(LlmThrottleRegistry.class).getClient("anthropic").getModels()).isEmpty();
        });
    }

    @Test
    void throttlingFailureReachesTheCallerAsItselfAfterMaxRetriesPlusOneAttempts() {
        this.server.stubFor(post(urlEqualTo("/v1/messages")).willReturn(
                aResponse().withStatus(529).withHeader("Content-Type", "application/json").withBody(OVERLOADED)));
        this.runner.run((context) -> {
            assertThatExceptionOfType(RetriesExhaustedException.class)
                .isThrownBy(() -> client(context).newCall(messages(this.server, BODY).build()).execute());
            this.server.verify(3, postRequestedFor(urlEqualTo("/v1/messages")));
        });
    }

    /**
     * OkHttp's call timeout counts the wait for admission: with one request a minute and
     * a queue max-wait of 30 s, the second call cannot be admitted within a 6 s call
     * timeout: it gives up waiting 4.5 s in, saying so, before OkHttp would cut it.
     */
    @Test
    void admissionThatCannotFitInTheCallTimeoutFailsEarlySayingSo() {
        this.server.stubFor(post(urlEqualTo("/v1/messages"))
            .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(SUCCESS)));
        // the wait for admission moves this clock instead of passing: how long the call
        // waited is read on the library's own clock, whatever the machine's speed
        FakeClock clock = FakeClock.at("2026-03-02T09:00:00Z").advancingWaits();
        this.runner.withBean(TimeSource.class, () -> clock)
            .withPropertyValues("llm.throttle.clients.anthropic.models.claude-opus-4-7.requests-per-minute=1",
                    "llm.throttle.queue.max-wait=30s")
            .run((context) -> {
                OkHttpClient client = client(context).newBuilder().callTimeout(Duration.ofSeconds(6)).build();
                try (Response response = client.newCall(messages(this.server, BODY).build()).execute()) {
                    assertThat(response.code()).isEqualTo(200);
                }
                Instant start = clock.instant();
                assertThatExceptionOfType(AdmissionTimeoutException.class)
                    .isThrownBy(() -> client.newCall(messages(this.server, BODY).build()).execute())
                    .withMessageContaining("call timeout of 6s")
                    .withMessageContaining("llm.throttle.queue.max-wait");
                assertThat(Duration.between(start, clock.instant())).isLessThan(Duration.ofSeconds(6));
                this.server.verify(1, postRequestedFor(urlEqualTo("/v1/messages")));
                assertThat(context.getBean(LlmThrottleRegistry.class)
                    .getClient("anthropic")
                    .model("claude-opus-4-7")
                    .getLimiter()
                    .state()
                    .queued()
                    .total()).isZero();
            });
    }

    @Test
    void retryWhoseWaitCannotFitInTheCallTimeoutFailsEarlySayingSo() {
        this.server.stubFor(post(urlEqualTo("/v1/messages")).willReturn(aResponse().withStatus(529)
            .withHeader("retry-after", "7")
            .withHeader("Content-Type", "application/json")
            .withBody(OVERLOADED)));
        this.runner.run((context) -> {
            // waits must end 6 s into the 8 s call timeout: retry-after 7 cannot fit
            OkHttpClient client = client(context).newBuilder().callTimeout(Duration.ofSeconds(8)).build();
            assertThatExceptionOfType(RetriesExhaustedException.class)
                .isThrownBy(() -> client.newCall(messages(this.server, BODY).build()).execute())
                .withMessageContaining("after 1 attempts")
                .withMessageContaining("the next retry, in 7")
                .withMessageContaining("call timeout of 8s")
                .withMessageContaining("HTTP 529");
            this.server.verify(1, postRequestedFor(urlEqualTo("/v1/messages")));
        });
    }

    /**
     * OkHttp's dispatcher runs at most {@code maxRequestsPerHost} enqueued calls (5 by
     * default, 64 in Spring AI) and keeps the rest in FIFO order before any interceptor:
     * eight batch calls waiting for admission would hold every slot, and a realtime call
     * enqueued after them could not overtake. All of them reach the priority queue, and
     * the realtime call is admitted next.
     */
    @Test
    void enqueuedCallsAllReachThePriorityQueueSoARealtimeCallOvertakesBatchCalls() {
        this.server.stubFor(post(urlEqualTo("/v1/messages"))
            .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(SUCCESS)));
        List<Priority> admitted = new CopyOnWriteArrayList<>();
        this.runner.withPropertyValues("llm.throttle.clients.anthropic.models.claude-opus-4-7.max-concurrency=1")
            .withBean(ThrottleObserver.class, () -> new ThrottleObserver() {

                @Override
                public void onAdmitted(String client, String model, Priority priority, Duration waited) {
                    admitted.add(priority);
                }

            })
            .run((context) -> {
                OkHttpClient client = client(context);
                assertThat(client.dispatcher().getMaxRequestsPerHost()).isEqualTo(5);
                CountDownLatch done = new CountDownLatch(9);
                Callback callback = new Callback() {

                    @Override
                    public void onResponse(Call call, Response response) {
                        response.close();
                        done.countDown();
                    }

                    @Override
                    public void onFailure(Call call, IOException ex) {
                        done.countDown();
                    }

                };
                // the only slot is held here until every call waits for admission,
                // however slow the machine
                HeldSlot held = HeldSlot.take(limiter(context));
                for (int i = 0; i < 8; i++) {
                    client
                        .newCall(
                                messages(this.server, BODY).header(OkHttpThrottlingInterceptor.PRIORITY_HEADER, "BATCH")
                                    .build())
                        .enqueue(callback);
                }
                LimiterState state = await(context, 8);
                assertThat(state.queued().batch()).isEqualTo(8);
                client
                    .newCall(messages(this.server, BODY).header(OkHttpThrottlingInterceptor.PRIORITY_HEADER, "REALTIME")
                        .build())
                    .enqueue(callback);
                assertThat(await(context, 9).queued().realtime()).isEqualTo(1);
                held.release();
                assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
                assertThat(admitted).hasSize(9);
                assertThat(admitted.get(0)).isEqualTo(Priority.REALTIME);
                assertThat(client.dispatcher().getMaxRequestsPerHost()).isGreaterThanOrEqualTo(1000);
            });
    }

    /** The limiter's state once {@code queued} calls wait (within 20 s). */
    private static LimiterState await(ApplicationContext context, int queued) throws InterruptedException {
        ModelLimiter limiter = limiter(context);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (limiter.state().queued().total() < queued && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        return limiter.state();
    }

    /**
     * OkHttp's call timeout cancels the call, so inside the chain a hung provider ends as
     * a cancelled call does: the timeout is the provider's failure all the same, and two
     * of them open a circuit whose threshold is two.
     */
    @Test
    void aHungProviderOpensTheCircuitAfterFailureThresholdCallTimeouts() {
        this.server.stubFor(post(urlEqualTo("/v1/messages")).willReturn(
                aResponse().withFixedDelay(5000).withHeader("Content-Type", "application/json").withBody(SUCCESS)));
        this.runner.withPropertyValues("llm.throttle.circuit.failure-threshold=2").run((context) -> {
            OkHttpClient client = client(context).newBuilder().callTimeout(Duration.ofMillis(500)).build();
            for (int i = 0; i < 2; i++) {
                assertThatException().isThrownBy(() -> client.newCall(messages(this.server, BODY).build()).execute());
            }
            ModelCircuit circuit = model(context).getCircuit();
            assertThat(circuit.state()).isEqualTo(CircuitState.OPEN);
            assertThatExceptionOfType(CircuitOpenException.class)
                .isThrownBy(() -> client.newCall(messages(this.server, BODY).build()).execute());
            this.server.verify(2, postRequestedFor(urlEqualTo("/v1/messages")));
            assertThat(totals(context).attempts()).isEqualTo(2);
            assertThat(model(context).getLimiter().state().inFlight()).isZero();
        });
    }

    @Test
    void aCallItsCallerCancelsIsNeitherAFailureNorRetried() {
        this.server.stubFor(post(urlEqualTo("/v1/messages")).willReturn(
                aResponse().withFixedDelay(5000).withHeader("Content-Type", "application/json").withBody(SUCCESS)));
        this.runner.withPropertyValues("llm.throttle.circuit.failure-threshold=1").run((context) -> {
            Call call = client(context).newCall(messages(this.server, BODY).build());
            CompletableFuture<Void> cancelled = CompletableFuture.runAsync(() -> {
                Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> this.server.getAllServeEvents().size() == 1);
                call.cancel();
            });
            assertThatException().isThrownBy(call::execute);
            cancelled.get(20, TimeUnit.SECONDS);
            ModelCircuit circuit = model(context).getCircuit();
            assertThat(circuit.state()).isEqualTo(CircuitState.CLOSED);
            assertThat(circuit.consecutiveFailures()).isZero();
            assertThat(totals(context).attempts()).isZero();
            assertThat(model(context).getLimiter().state().inFlight()).isZero();
            this.server.verify(1, postRequestedFor(urlEqualTo("/v1/messages")));
        });
    }

    @Test
    void aSuccessWhoseBodyBreaksWhileReadIsNotRetriedBecauseItWasBilled() {
        this.server.stubFor(post(urlEqualTo("/v1/messages")).willReturn(
                aResponse().withHeader("Content-Type", "application/json").withFault(Fault.MALFORMED_RESPONSE_CHUNK)));
        this.runner.run((context) -> {
            assertThatExceptionOfType(UncheckedIOException.class)
                .isThrownBy(() -> client(context).newCall(messages(this.server, BODY).build()).execute())
                .withCauseInstanceOf(ResponseBodyReadException.class);
            this.server.verify(1, postRequestedFor(urlEqualTo("/v1/messages")));
            assertThat(model(context).getLimiter().state().inFlight()).isZero();
        });
    }

    private static ModelLimiter limiter(ApplicationContext context) {
        return context.getBean(LlmThrottleRegistry.class).getClient("anthropic").model("claude-opus-4-7").getLimiter();
    }

    @Test
    void everyAttemptSendsTheWholeBodyOfAOneShotRequestBody() {
        this.server.stubFor(post(urlEqualTo("/v1/messages")).inScenario("retry")
            .whenScenarioStateIs(Scenario.STARTED)
            .willReturn(aResponse().withStatus(529).withHeader("Content-Type", "application/json").withBody(OVERLOADED))
            .willSetStateTo("recovered"));
        this.server.stubFor(post(urlEqualTo("/v1/messages")).inScenario("retry")
            .whenScenarioStateIs("recovered")
            .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(SUCCESS)));
        this.runner.run((context) -> {
            Request request = new Request.Builder().url(this.server.baseUrl() + "/v1/messages")
                .post(new OneShotBody(BODY))
                .build();
            try (Response response = client(context).newCall(request).execute()) {
                assertThat(response.code()).isEqualTo(200);
            }
            this.server.verify(2, postRequestedFor(urlEqualTo("/v1/messages")).withRequestBody(equalToJson(BODY)));
        });
    }

    @Test
    void interceptorAddedTwiceThrottlesARequestOnce() {
        this.server.stubFor(post(urlEqualTo("/v1/messages"))
            .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(SUCCESS)));
        this.runner.run((context) -> {
            OkHttpThrottlingInterceptor interceptor = context.getBean(OkHttpThrottlingInterceptor.class);
            OkHttpClient client = new OkHttpClient.Builder().addInterceptor(interceptor)
                .addInterceptor(interceptor)
                .build();
            try (Response response = client.newCall(messages(this.server, BODY).build()).execute()) {
                assertThat(response.code()).isEqualTo(200);
            }
            assertThat(totals(context).calls()).isEqualTo(1);
            assertThat(totals(context).attempts()).isEqualTo(1);
        });
    }

    @Test
    void streamIsHandedOverAsItArrivesAndSettledFromItsEvents() {
        this.server.stubFor(post(urlEqualTo("/v1/messages")).withHeader("Accept", equalTo("text/event-stream"))
            .willReturn(aResponse().withHeader("Content-Type", "text/event-stream").withBody(EVENTS)));
        this.runner.run((context) -> {
            Request request = messages(this.server, STREAM_BODY).header("Accept", "text/event-stream").build();
            try (Response response = client(context).newCall(request).execute()) {
                assertThat(response.body().contentLength()).isEqualTo(-1);
                assertThat(response.body().contentType().toString()).startsWith("text/event-stream");
                assertThat(response.body().string()).isEqualTo(EVENTS);
            }
            ModelTotals.Snapshot totals = totals(context);
            assertThat(totals.inputTokens()).isEqualTo(9);
            assertThat(totals.outputTokens()).isEqualTo(2);
            assertThat(context.getBean(LlmThrottleRegistry.class)
                .getClient("anthropic")
                .model("claude-opus-4-7")
                .getLimiter()
                .state()
                .inFlight()).isZero();
        });
    }

    @Test
    void anOverloadedDeploymentHandsTheAttemptToAnotherBaseUrlAndKey() {
        this.server.stubFor(post(urlEqualTo("/v1/messages?beta=true")).willReturn(
                aResponse().withStatus(529).withHeader("Content-Type", "application/json").withBody(OVERLOADED)));
        this.otherServer
            .stubFor(post(urlEqualTo("/v1/messages?beta=true")).withHeader("x-api-key", equalTo("backup-key"))
                .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(SUCCESS)));
        String deployments = "llm.throttle.clients.anthropic.models.claude-opus-4-7.deployments.";
        this.runner
            .withPropertyValues("llm.throttle.clients.anthropic.api-key=primary-key",
                    deployments + "primary.requests-per-minute=100",
                    deployments + "backup.base-url=http://localhost:" + this.otherServer.port(),
                    deployments + "backup.api-key=backup-key")
            .run((context) -> {
                Request request = new Request.Builder().url(this.server.baseUrl() + "/v1/messages?beta=true")
                    .header("x-api-key", "primary-key")
                    .header("Authorization", "Bearer primary-token")
                    .post(RequestBody.create(BODY, JSON))
                    .build();
                try (Response response = client(context).newCall(request).execute()) {
                    assertThat(response.code()).isEqualTo(200);
                    assertThat(response.body().string()).isEqualTo(SUCCESS);
                }
                this.server.verify(1, postRequestedFor(urlEqualTo("/v1/messages?beta=true")).withHeader("x-api-key",
                        equalTo("primary-key")));
                // the backup brings its own key: the caller's credentials stay with the
                // primary
                this.otherServer.verify(1,
                        postRequestedFor(urlEqualTo("/v1/messages?beta=true"))
                            .withHeader("x-api-key", equalTo("backup-key"))
                            .withoutHeader("Authorization")
                            .withRequestBody(equalToJson(BODY)));
                ThrottledClientModels models = new ThrottledClientModels(context);
                assertThat(models.attempts("claude-opus-4-7@primary")).isEqualTo(1);
                assertThat(models.attempts("claude-opus-4-7@backup")).isEqualTo(1);
            });
    }

    @Test
    void countTokensIsRetriedOn529ButTakesNothingOfTheModelNorGoesToADeployment() {
        String countTokens = "/v1/messages/count_tokens";
        this.server.stubFor(post(urlEqualTo(countTokens)).inScenario("retry")
            .whenScenarioStateIs(Scenario.STARTED)
            .willReturn(aResponse().withStatus(529).withHeader("Content-Type", "application/json").withBody(OVERLOADED))
            .willSetStateTo("recovered"));
        this.server.stubFor(post(urlEqualTo(countTokens)).inScenario("retry")
            .whenScenarioStateIs("recovered")
            .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody("{\"input_tokens\":9}")));
        String model = "llm.throttle.clients.anthropic.models.claude-opus-4-7.";
        this.runner
            .withPropertyValues(model + "requests-per-minute=10", model + "tokens-per-day=100",
                    model + "deployments.primary.requests-per-minute=10",
                    model + "deployments.backup.base-url=http://localhost:" + this.otherServer.port(),
                    model + "deployments.backup.api-key=backup-key")
            .run((context) -> {
                Request request = new Request.Builder().url(this.server.baseUrl() + countTokens)
                    .post(RequestBody.create(BODY, JSON))
                    .build();
                try (Response response = client(context).newCall(request).execute()) {
                    assertThat(response.code()).isEqualTo(200);
                    assertThat(response.header("x-should-retry")).isEqualTo("false");
                    assertThat(response.body().string()).contains("input_tokens");
                }
                this.server.verify(2, postRequestedFor(urlEqualTo(countTokens)));
                this.otherServer.verify(0, postRequestedFor(urlEqualTo(countTokens)));
                assertThat(context.getBean(LlmThrottleRegistry.class).getClient("anthropic").getModels().values())
                    .allSatisfy((state) -> {
                        assertThat(state.getTotals().snapshot().calls()).isZero();
                        assertThat(state.getLimiter().state().available().requests()).isEqualTo(10L);
                    });
                assertThat(context.getBean(TokenQuotas.class)
                    .states(Map.of("anthropic", List.of("claude-opus-4-7")))
                    .get(0)
                    .used()).isZero();
            });
    }

    @Test
    void aDownloadFromTheConfiguredHostReachesTheCallerAsItArrives() throws Exception {
        try (HalfwayDownload download = HalfwayDownload.start()) {
            this.runner.withPropertyValues("llm.throttle.clients.anthropic.base-url=" + download.baseUrl())
                .run((context) -> {
                    Request request = new Request.Builder().url(download.baseUrl() + "/v1/files/file_1/content")
                        .build();
                    try (Response response = client(context).newCall(request).execute()) {
                        assertThat(response.header("x-should-retry")).isNull();
                        // into an array: readNBytes(int) ends with a read of 0 bytes,
                        // which
                        // OkHttp's stream answers only once more bytes arrive
                        assertThat(response.body()
                            .byteStream()
                            .readNBytes(new byte[HalfwayDownload.HALF], 0, HalfwayDownload.HALF))
                            .isEqualTo(HalfwayDownload.HALF);
                        download.firstHalfRead();
                        assertThat(response.body().byteStream().readAllBytes()).hasSize(HalfwayDownload.HALF);
                    }
                });
            assertThat(download.requests()).isOne();
            assertThat(download.wasReadHalfway()).isTrue();
        }
    }

    @Test
    void anUploadToTheConfiguredHostStreamsItsBody() {
        this.server.stubFor(post(urlEqualTo("/v1/files")).willReturn(aResponse().withBody("{\"id\":\"file_1\"}")));
        this.runner.run((context) -> {
            Request request = new Request.Builder().url(this.server.baseUrl() + "/v1/files")
                .post(new OneShotBody("file content"))
                .build();
            try (Response response = client(context).newCall(request).execute()) {
                assertThat(response.code()).isEqualTo(200);
            }
            // a body of unknown length that is not buffered goes in chunks
            this.server.verify(1, postRequestedFor(urlEqualTo("/v1/files")).withoutHeader("Content-Length"));
            assertThat(context.getBean(LlmThrottleRegistry.class).getClient("anthropic").getModels()).isEmpty();
        });
    }

    private record ThrottledClientModels(ApplicationContext context) {

        long attempts(String model) {
            return this.context.getBean(LlmThrottleRegistry.class)
                .getClient("anthropic")
                .model(model)
                .getTotals()
                .snapshot()
                .attempts();
        }

    }

    private static OkHttpClient client(ApplicationContext context) {
        return new OkHttpClient.Builder().addInterceptor(context.getBean(OkHttpThrottlingInterceptor.class)).build();
    }

    private static Request.Builder messages(WireMockServer server, String body) {
        return new Request.Builder().url(server.baseUrl() + "/v1/messages").post(RequestBody.create(body, JSON));
    }

    private static ThrottledModel model(ApplicationContext context) {
        return context.getBean(LlmThrottleRegistry.class).getClient("anthropic").model("claude-opus-4-7");
    }

    private static ModelTotals.Snapshot totals(ApplicationContext context) {
        return context.getBean(LlmThrottleRegistry.class)
            .getClient("anthropic")
            .model("claude-opus-4-7")
            .getTotals()
            .snapshot();
    }

    /** A body that can be written once only, as an SDK's streamed request body. */
    private static final class OneShotBody extends RequestBody {

        private final byte[] bytes;

        private boolean written;

        OneShotBody(String body) {
            this.bytes = body.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public MediaType contentType() {
            return JSON;
        }

        @Override
        public boolean isOneShot() {
            return true;
        }

        @Override
        public void writeTo(BufferedSink sink) throws IOException {
            if (this.written) {
                throw new IOException("One-shot body written twice");
            }
            this.written = true;
            sink.write(this.bytes);
        }

    }

}
