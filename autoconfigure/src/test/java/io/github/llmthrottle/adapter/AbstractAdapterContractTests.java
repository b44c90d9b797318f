package io.github.llmthrottle.adapter;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.Caller;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottleObserver;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * What every adapter of llm-throttle (the {@code RestClient}, the OkHttp interceptor of
 * the Spring AI path, the Anthropic and OpenAI SDK hooks, LangChain4j) does the same,
 * against a provider on loopback: it retries a 429 after its {@code retry-after} and a
 * 529 with back-off, fails over to another deployment, settles a stream from its usage,
 * leaves a 429 the provider says not to retry alone, surfaces a refusal as the
 * {@link LlmThrottleException} it is, and sends nothing of its own to the provider. One
 * subclass per adapter says how a caller sends a call through it; a new adapter is a new
 * subclass. The time source is a {@link FakeClock}: sleeps between retries are recorded,
 * not slept, and no bucket refills while a test runs.
 */
public abstract class AbstractAdapterContractTests {

    private final WireMockServer provider = new WireMockServer(wireMockConfig().dynamicPort());

    private final WireMockServer backup = new WireMockServer(wireMockConfig().dynamicPort());

    private final FakeClock clock = FakeClock.at("2026-03-02T09:00:00Z").advancingWaits();

    /** The priority and tenant of each admission: {@code PRIORITY/TENANT}. */
    private final List<String> admitted = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startProvider() {
        this.provider.start();
        this.backup.start();
    }

    @AfterEach
    void stopProvider() {
        this.provider.stop();
        this.backup.stop();
    }

    /**
     * The provider the adapter speaks to.
     * @return the dialect of its requests and responses
     */
    protected abstract Dialect dialect();

    /**
     * Sends one call of the dialect's model through the adapter under test, as its
     * callers do; a streamed one is read to its end and closed.
     * @param context the application context, with llm-throttle and its hooks
     * @param baseUrl the base URL of the provider, as {@link Dialect#baseUrl} gives it
     * @param stream whether the call asks for a stream of events
     * @return the text of the answer, or its body
     * @throws Exception the call's failure, as the adapter surfaces it
     */
    protected abstract String send(ApplicationContext context, String baseUrl, boolean stream) throws Exception;

    /**
     * Sends as {@link #send} does, with a priority and tenant given as the adapter's
     * callers give them; by default as a {@link ThrottleContext} on the calling thread.
     * @param context the application context
     * @param baseUrl the base URL of the provider
     * @param stream whether the call asks for a stream of events
     * @param priority the caller's priority
     * @param tenant the caller's tenant
     * @return the text of the answer, or its body
     * @throws Exception the call's failure, as the adapter surfaces it
     */
    protected String sendAs(ApplicationContext context, String baseUrl, boolean stream, Priority priority,
            String tenant) throws Exception {
        try (ThrottleContext.Scope scope = ThrottleContext
            .open(new ThrottleContext(dialect().client(), dialect().model(), priority, tenant, 0, null))) {
            return send(context, baseUrl, stream);
        }
    }

    /**
     * The auto-configurations of the adapter's module, beside llm-throttle's core one
     * (which wires the {@code RestClient} itself).
     * @return the auto-configuration classes, none by default
     */
    protected Class<?>[] autoConfigurations() {
        return new Class<?>[0];
    }

    /**
     * The throttling failure a refused call was surfaced as: by default the failure
     * itself; an adapter that documents a wrapping unwraps it here.
     * @param thrown what the call threw
     * @return the throttling failure in it
     */
    protected Throwable refusal(Throwable thrown) {
        return thrown;
    }

    @Test
    void a429WithRetryAfterIsRetriedAfterThatWaitAndSucceeds() throws Exception {
        script(rateLimited().withHeader("retry-after", "2"), answer());
        runner().run((context) -> {
            assertThat(send(context, dialect().baseUrl(this.provider), false)).contains("Hi");
            this.provider.verify(2, postRequestedFor(urlPathEqualTo(dialect().path())));
            assertThat(this.clock.sleeps()).hasSize(1);
            assertThat(this.clock.sleeps().get(0)).isBetween(Duration.ofSeconds(2), Duration.ofMillis(2500));
        });
    }

    @Test
    void a529IsRetriedWithBackOffAndSucceeds() throws Exception {
        script(aResponse().withStatus(529)
            .withHeader("Content-Type", "application/json")
            .withBody(dialect().overloaded()), answer());
        runner().run((context) -> {
            assertThat(send(context, dialect().baseUrl(this.provider), false)).contains("Hi");
            this.provider.verify(2, postRequestedFor(urlPathEqualTo(dialect().path())));
            // the back-off of llm.throttle.retry (no jitter), not a wait the server asked
            // for
            assertThat(this.clock.sleeps()).hasSize(1);
            assertThat(this.clock.sleeps().get(0)).isBetween(Duration.ofMillis(300), Duration.ofSeconds(5));
        });
    }

    @Test
    void anOverloadedDeploymentFailsOverToTheOtherDeployment() throws Exception {
        this.provider.stubFor(post(urlPathEqualTo(dialect().path())).willReturn(aResponse().withStatus(529)
            .withHeader("Content-Type", "application/json")
            .withBody(dialect().overloaded())));
        this.backup.stubFor(post(urlPathEqualTo(dialect().path())).willReturn(answer()));
        String deployments = dialect().modelProperty() + "deployments.";
        runner()
            .withPropertyValues(deployments + "primary.requests-per-minute=100",
                    deployments + "backup.base-url=" + dialect().baseUrl(this.backup),
                    deployments + "backup.api-key=backup-key")
            .run((context) -> {
                assertThat(send(context, dialect().baseUrl(this.provider), false)).contains("Hi");
                this.provider.verify(1, postRequestedFor(urlPathEqualTo(dialect().path())));
                this.backup.verify(1, postRequestedFor(urlPathEqualTo(dialect().path())));
                assertThat(model(context, dialect().model() + "@primary").getTotals().snapshot().attempts())
                    .isEqualTo(1);
                assertThat(model(context, dialect().model() + "@backup").getTotals().snapshot().attempts())
                    .isEqualTo(1);
                assertThat(model(context, dialect().model()).getTotals().snapshot().succeeded()).isEqualTo(1);
                // the other deployment takes the call at once, without a back-off
                assertThat(this.clock.sleeps()).isEmpty();
            });
    }

    @Test
    void aStreamsUsageSettlesItsPermit() throws Exception {
        this.provider.stubFor(post(urlPathEqualTo(dialect().path())).willReturn(answer()));
        this.provider.stubFor(post(urlPathEqualTo(dialect().path()))
            .withRequestBody(matchingJsonPath("$.stream", equalTo("true")))
            .atPriority(1)
            .willReturn(aResponse().withHeader("Content-Type", "text/event-stream").withBody(dialect().events())));
        runner()
            .withPropertyValues(dialect().modelProperty() + "input-tokens-per-minute=100000",
                    dialect().modelProperty() + "output-tokens-per-minute=100000")
            .run((context) -> {
                assertThat(send(context, dialect().baseUrl(this.provider), true)).contains("Hi");
                ThrottledModel model = model(context, dialect().model());
                // some adapters settle on the thread that reads the stream's last event
                await().atMost(Duration.ofSeconds(60))
                    .until(() -> model.getTotals().snapshot().succeeded() == 1
                            && model.getLimiter().state().inFlight() == 0);
                ModelTotals.Snapshot totals = model.getTotals().snapshot();
                assertThat(totals.calls()).isEqualTo(1);
                assertThat(totals.attempts()).isEqualTo(1);
                assertThat(totals.inputTokens()).isEqualTo(9);
                assertThat(totals.outputTokens()).isEqualTo(2);
                // the clock stands still: the buckets hold what the stream used, no more
                LimiterState.Available available = model.getLimiter().state().available();
                assertThat(available.inputTokens()).isEqualTo(100_000 - 9);
                assertThat(available.outputTokens()).isEqualTo(100_000 - 2);
            });
    }

    @Test
    void a429TheProviderSaysNotToRetryIsSentOnce() {
        script(rateLimited().withHeader("retry-after", "1").withHeader("x-should-retry", "false"), answer());
        runner().run((context) -> {
            assertThat(catchThrowable(() -> send(context, dialect().baseUrl(this.provider), false))).isNotNull();
            this.provider.verify(1, postRequestedFor(urlPathEqualTo(dialect().path())));
            assertThat(this.clock.sleeps()).isEmpty();
            assertThat(model(context, dialect().model()).getLimiter().state().inFlight()).isZero();
        });
    }

    @Test
    void aRefusedCallSurfacesAsTheThrottlingFailureItIs() {
        this.provider.stubFor(post(urlPathEqualTo(dialect().path())).willReturn(answer()));
        runner()
            .withPropertyValues(dialect().modelProperty() + "requests-per-minute=1", "llm.throttle.queue.max-wait=1s")
            .run((context) -> {
                assertThat(send(context, dialect().baseUrl(this.provider), false)).contains("Hi");
                Throwable thrown = catchThrowable(() -> send(context, dialect().baseUrl(this.provider), false));
                assertThat(refusal(thrown)).isInstanceOf(AdmissionTimeoutException.class)
                    .isInstanceOf(LlmThrottleException.class);
                this.provider.verify(1, postRequestedFor(urlPathEqualTo(dialect().path())));
                LimiterState state = model(context, dialect().model()).getLimiter().state();
                assertThat(state.inFlight()).isZero();
                assertThat(state.queued().total()).isZero();
            });
    }

    @Test
    void theCallersPriorityAndTenantApplyAndNothingOfLlmThrottleReachesTheProvider() {
        this.provider.stubFor(post(urlPathEqualTo(dialect().path())).willReturn(answer()));
        this.provider.stubFor(post(urlPathEqualTo(dialect().path()))
            .withRequestBody(matchingJsonPath("$.stream", equalTo("true")))
            .atPriority(1)
            .willReturn(aResponse().withHeader("Content-Type", "text/event-stream").withBody(dialect().events())));
        runner().run((context) -> {
            String baseUrl = dialect().baseUrl(this.provider);
            assertThat(sendAs(context, baseUrl, false, Priority.REALTIME, "acme")).contains("Hi");
            assertThat(sendAs(context, baseUrl, true, Priority.BATCH, "acme")).contains("Hi");
            assertThat(this.admitted).containsExactly("REALTIME/acme", "BATCH/acme");
            List<LoggedRequest> received = this.provider.findAll(postRequestedFor(urlPathEqualTo(dialect().path())));
            assertThat(received).hasSize(2);
            assertThat(received).allSatisfy((request) -> assertThat(request.getAllHeaderKeys())
                .noneMatch((header) -> header.toLowerCase(Locale.ROOT).startsWith("x-llm-throttle")));
        });
    }

    private ApplicationContextRunner runner() {
        // each call's view knows its caller's tenant, on whatever thread the call runs
        ThrottleObserver observer = new ThrottleObserver() {

            @Override
            public ThrottleObserver forCall(Caller caller) {
                return new ThrottleObserver() {

                    @Override
                    public void onAdmitted(String client, String model, Priority priority, Duration waited) {
                        AbstractAdapterContractTests.this.admitted.add(priority + "/" + caller.tenant());
                    }

                };
            }

        };
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                    LlmThrottleAutoConfiguration.class))
            .withConfiguration(AutoConfigurations.of(autoConfigurations()))
            .withBean(TimeSource.class, () -> this.clock)
            .withBean(ThrottleObserver.class, () -> observer)
            .withPropertyValues("llm.throttle.clients." + dialect().client() + ".provider=" + dialect().client(),
                    "llm.throttle.clients." + dialect().client() + ".base-url=" + dialect().baseUrl(this.provider),
                    "llm.throttle.retry.max-retries=2", "llm.throttle.retry.delay=300ms",
                    "llm.throttle.retry.max-delay=5s", "llm.throttle.retry.jitter=none");
    }

    private ThrottledModel model(ApplicationContext context, String model) {
        return context.getBean(LlmThrottleRegistry.class).getClient(dialect().client()).model(model);
    }

    private ResponseDefinitionBuilder answer() {
        return aResponse().withHeader("Content-Type", "application/json").withBody(dialect().answer());
    }

    private ResponseDefinitionBuilder rateLimited() {
        return aResponse().withStatus(429)
            .withHeader("Content-Type", "application/json")
            .withBody(dialect().rateLimited());
    }

    private void script(ResponseDefinitionBuilder... responses) {
        String state = Scenario.STARTED;
        for (int i = 0; i < responses.length; i++) {
            String next = (i < responses.length - 1) ? "attempt-" + (i + 2) : state;
            this.provider.stubFor(post(urlPathEqualTo(dialect().path())).inScenario("script")
                .whenScenarioStateIs(state)
                .willReturn(responses[i])
                .willSetStateTo(next));
            state = next;
        }
    }

    /**
     * A provider's requests and answers: the answer is always "Hi", 9 input and 2 output
     * tokens.
     */
    protected enum Dialect {

        /** Anthropic's Messages API. */
        ANTHROPIC("anthropic", "claude-sonnet-4-5", "/v1/messages", """
                {"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],
                 "model":"claude-sonnet-4-5","stop_reason":"end_turn","stop_sequence":null,
                 "usage":{"input_tokens":9,"output_tokens":2}}""",
                """
                        event: message_start
                        data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":1}}}

                        event: content_block_start
                        data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

                        event: content_block_delta
                        data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}

                        event: content_block_stop
                        data: {"type":"content_block_stop","index":0}

                        event: message_delta
                        data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}

                        event: message_stop
                        data: {"type":"message_stop"}

                        """,
                """
                        {"type":"error","error":{"type":"rate_limit_error","message":"Rate limited"}}""", """
                        {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"""),

        /** OpenAI's Chat Completions API. */
        OPENAI("openai", "gpt-4o-mini", "/v1/chat/completions", """
                {"id":"chatcmpl-1","object":"chat.completion","created":1767225600,"model":"gpt-4o-mini",
                 "choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}],
                 "usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}""",
                """
                        data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}

                        data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

                        data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}

                        data: [DONE]

                        """,
                """
                        {"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}""",
                """
                        {"error":{"message":"The server is overloaded","type":"server_error","code":null}}""");

        private final String client;

        private final String model;

        private final String path;

        private final String answer;

        private final String events;

        private final String rateLimited;

        private final String overloaded;

        Dialect(String client, String model, String path, String answer, String events, String rateLimited,
                String overloaded) {
            this.client = client;
            this.model = model;
            this.path = path;
            this.answer = answer;
            this.events = events;
            this.rateLimited = rateLimited;
            this.overloaded = overloaded;
        }

        /** The configured client, named as its provider. */
        public String client() {
            return this.client;
        }

        /** The model every call asks for. */
        public String model() {
            return this.model;
        }

        /** The path of a call, below the server's root. */
        public String path() {
            return this.path;
        }

        String answer() {
            return this.answer;
        }

        String events() {
            return this.events;
        }

        String rateLimited() {
            return this.rateLimited;
        }

        String overloaded() {
            return this.overloaded;
        }

        String modelProperty() {
            return "llm.throttle.clients." + this.client + ".models." + this.model + ".";
        }

        /**
         * The base URL of a client of this provider on {@code server}: the server's root
         * for Anthropic, its {@code /v1} for OpenAI.
         * @param server the server
         * @return the base URL
         */
        public String baseUrl(WireMockServer server) {
            return "http://localhost:" + server.port() + ((this == OPENAI) ? "/v1" : "");
        }

    }

}
