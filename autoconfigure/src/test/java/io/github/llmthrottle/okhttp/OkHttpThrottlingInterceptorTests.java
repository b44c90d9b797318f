package io.github.llmthrottle.okhttp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.autoconfigure.LlmThrottleSpringAiAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottleObserver;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.equalToJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
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
                    .post(RequestBody.create(BODY, JSON))
                    .build();
                try (Response response = client(context).newCall(request).execute()) {
                    assertThat(response.code()).isEqualTo(200);
                    assertThat(response.body().string()).isEqualTo(SUCCESS);
                }
                this.server.verify(1, postRequestedFor(urlEqualTo("/v1/messages?beta=true")).withHeader("x-api-key",
                        equalTo("primary-key")));
                this.otherServer.verify(1,
                        postRequestedFor(urlEqualTo("/v1/messages?beta=true"))
                            .withHeader("x-api-key", equalTo("backup-key"))
                            .withRequestBody(equalToJson(BODY)));
                ThrottledClientModels models = new ThrottledClientModels(context);
                assertThat(models.attempts("claude-opus-4-7@primary")).isEqualTo(1);
                assertThat(models.attempts("claude-opus-4-7@backup")).isEqualTo(1);
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
