package io.github.llmthrottle.client;

import java.io.InputStream;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.RetryAfterTooLongException;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.time.SleeplessTimeSource;
import io.github.llmthrottle.time.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.StreamingHttpOutputMessage;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.within;

/**
 * The throttled {@code RestClient} bean against a real HTTP server on loopback, with
 * scripted 429/529/503 sequences and real headers. Sleeps are recorded instead of slept.
 */
class ThrottledRestClientWireMockTests {

    private static final String BODY = """
            {"model":"claude-opus-4-7","max_tokens":64,"messages":[{"role":"user","content":"Hello"}]}""";

    private static final String SUCCESS = """
            {"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],
             "model":"claude-opus-4-7","stop_reason":"end_turn","usage":{"input_tokens":9,"output_tokens":2}}""";

    private static final String RATE_LIMITED = """
            {"type":"error","error":{"type":"rate_limit_error","message":"Number of input tokens has exceeded the per-minute rate limit."},"request_id":"req_1"}""";

    private static final String OVERLOADED = """
            {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_2"}""";

    private final WireMockServer server = new WireMockServer(wireMockConfig().dynamicPort());

    private final WireMockServer otherServer = new WireMockServer(wireMockConfig().dynamicPort());

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.server.start();
        this.otherServer.start();
        RecordingSleeper.SLEEPS.clear();
        this.runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                    RestTemplateAutoConfiguration.class, LlmThrottleAutoConfiguration.class))
            .withUserConfiguration(RecordingSleeper.class)
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=http://localhost:" + this.server.port(),
                    "llm.throttle.clients.anthropic.api-key=test-key",
                    "llm.throttle.clients.anthropic.default-model=claude-opus-4-7", "llm.throttle.retry.jitter=none");
    }

    @AfterEach
    void stop() {
        this.server.stop();
        this.otherServer.stop();
    }

    @Test
    void rateLimitedThenOverloadedThenOkSucceedsAfterTheServersWait() {
        script(aResponse().withStatus(429).withHeader("retry-after", "1").withBody(RATE_LIMITED),
                aResponse().withStatus(529).withBody(OVERLOADED), okJson());
        this.runner.run((context) -> {
            String answer = call(context.getBean("anthropicRestClient", RestClient.class));
            assertThat(answer).contains("msg_1");
            this.server.verify(3, postRequestedFor(urlEqualTo("/v1/messages")));
            this.server.verify(3,
                    postRequestedFor(urlEqualTo("/v1/messages")).withHeader("x-api-key", equalTo("test-key"))
                        .withHeader("anthropic-version", equalTo("2023-06-01")));
            // the server's 1 s wins; then back-off (500 ms, jitter none) for the 529
            // without retry-after
            assertThat(RecordingSleeper.SLEEPS).hasSize(2);
            assertThat(RecordingSleeper.SLEEPS.get(0)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
            assertThat(RecordingSleeper.SLEEPS.get(1)).isEqualTo(Duration.ofMillis(1000));
        });
    }

    @Test
    void aRelaysLowerRemainingBesideAnthropicsIsWhatCalibratesTheLimiter() {
        this.server.stubFor(
                post("/v1/messages").willReturn(okJson().withHeader("anthropic-ratelimit-input-tokens-limit", "400000")
                    .withHeader("anthropic-ratelimit-input-tokens-remaining", "300000")
                    .withHeader("anthropic-ratelimit-input-tokens-reset", "2026-12-01T15:09:15Z")
                    .withHeader("x-ratelimit-limit-input-tokens", "400000")
                    .withHeader("x-ratelimit-remaining-input-tokens", "7000")
                    .withHeader("x-ratelimit-reset-input-tokens", "59s")
                    .withHeader("anthropic-ratelimit-requests-limit", "4000")
                    .withHeader("anthropic-ratelimit-requests-remaining", "3999")
                    .withHeader("x-ratelimit-limit-requests", "4000")
                    .withHeader("x-ratelimit-remaining-requests", "2500")));
        this.runner
            .withPropertyValues("llm.throttle.clients.anthropic.models.claude-opus-4-7.requests-per-minute=4000",
                    "llm.throttle.clients.anthropic.models.claude-opus-4-7.input-tokens-per-minute=400000")
            .run((context) -> {
                call(context.getBean("anthropicRestClient", RestClient.class));
                LimiterState state = context.getBean(LlmThrottleRegistry.class)
                    .getClient("anthropic")
                    .model("claude-opus-4-7")
                    .getLimiter()
                    .state();
                // the relay's 7000 (taken at its least, 6500), not Anthropic's 300000;
                // the call's own settlement gives back at most its small reservation
                assertThat(state.available().inputTokens()).isBetween(6000L, 7000L);
                assertThat(state.available().requests()).isBetween(2490L, 2500L);
            });
    }

    @Test
    void unauthorizedIsSentOnceAndSurfacesAsSpringsException() {
        this.server.stubFor(post("/v1/messages").willReturn(aResponse().withStatus(401)
            .withBody(
                    "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}")));
        this.runner.run((context) -> {
            assertThatExceptionOfType(HttpClientErrorException.Unauthorized.class)
                .isThrownBy(() -> call(context.getBean("anthropicRestClient", RestClient.class)))
                .satisfies((ex) -> assertThat(ex.getResponseBodyAsString()).contains("authentication_error"));
            this.server.verify(1, postRequestedFor(urlEqualTo("/v1/messages")));
            assertThat(RecordingSleeper.SLEEPS).isEmpty();
        });
    }

    @Test
    void badRequestIsSentOnceEvenWithARetryAfter() {
        this.server.stubFor(post("/v1/messages").willReturn(aResponse().withStatus(400)
            .withHeader("retry-after", "Fri, 29 Sep 100000 16:26:57 GMT")
            .withHeader("x-should-retry", "false")
            .withBody("{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"bad\"}}")));
        this.runner.run((context) -> {
            assertThatExceptionOfType(HttpClientErrorException.BadRequest.class)
                .isThrownBy(() -> call(context.getBean("anthropicRestClient", RestClient.class)));
            this.server.verify(1, postRequestedFor(urlEqualTo("/v1/messages")));
        });
    }

    @Test
    void anthropicSpendCap429IsSentOnce() {
        this.server.stubFor(post("/v1/messages").willReturn(aResponse().withStatus(429).withBody("""
                {"type":"error","error":{"type":"rate_limit_error","message":"You have reached your API usage limits.",
                 "details":{"error_code":"enforced_spend_limit_reached"}},"request_id":"req_018E"}""")));
        this.runner.run((context) -> {
            assertThatExceptionOfType(HttpClientErrorException.TooManyRequests.class)
                .isThrownBy(() -> call(context.getBean("anthropicRestClient", RestClient.class)));
            this.server.verify(1, postRequestedFor(urlEqualTo("/v1/messages")));
        });
    }

    @Test
    void openAiInsufficientQuota429IsSentOnce() {
        this.server.stubFor(post("/v1/chat/completions").willReturn(aResponse().withStatus(429).withBody("""
                {"error":{"message":"You exceeded your current quota, please check your plan and billing details.",
                 "type":"insufficient_quota","param":null,"code":"insufficient_quota"}}""")));
        this.runner.withPropertyValues("llm.throttle.clients.anthropic.provider=openai").run((context) -> {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            assertThatExceptionOfType(HttpClientErrorException.TooManyRequests.class).isThrownBy(() -> client.post()
                .uri("/v1/chat/completions")
                .contentType(MediaType.APPLICATION_JSON)
                .body("{\"model\":\"gpt-4o\",\"messages\":[]}")
                .retrieve()
                .body(String.class));
            this.server.verify(1, postRequestedFor(urlEqualTo("/v1/chat/completions")).withHeader("Authorization",
                    equalTo("Bearer test-key")));
        });
    }

    @Test
    void retryAfterMsBeatsRetryAfter() {
        script(aResponse().withStatus(429)
            .withHeader("retry-after-ms", "50")
            .withHeader("retry-after", "2")
            .withBody(RATE_LIMITED), okJson());
        this.runner.run((context) -> {
            call(context.getBean("anthropicRestClient", RestClient.class));
            assertThat(RecordingSleeper.SLEEPS).singleElement()
                .satisfies((sleep) -> assertThat(sleep).isBetween(Duration.ofMillis(50), Duration.ofMillis(100)));
        });
    }

    @Test
    void httpDateInTheFutureIsWaitedFor() {
        // the first of a month, written as java.time writes it: a one-digit day
        String inFiveSeconds = DateTimeFormatter.RFC_1123_DATE_TIME
            .format(RecordingSleeper.WALL_CLOCK.plusSeconds(5).atZone(ZoneOffset.UTC));
        assertThat(inFiveSeconds).isEqualTo("Tue, 1 Dec 2026 15:09:05 GMT");
        script(aResponse().withStatus(503).withHeader("retry-after", inFiveSeconds), okJson());
        this.runner.run((context) -> {
            call(context.getBean("anthropicRestClient", RestClient.class));
            this.server.verify(2, postRequestedFor(urlEqualTo("/v1/messages")));
            assertThat(RecordingSleeper.SLEEPS).singleElement()
                .satisfies((sleep) -> assertThat(sleep.toMillis()).isCloseTo(5000, within(1000L)));
        });
    }

    @Test
    void httpDateInThePastRetriesAtOnce() {
        script(aResponse().withStatus(503).withHeader("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT"), okJson());
        this.runner.run((context) -> {
            call(context.getBean("anthropicRestClient", RestClient.class));
            this.server.verify(2, postRequestedFor(urlEqualTo("/v1/messages")));
            assertThat(RecordingSleeper.SLEEPS).singleElement()
                .satisfies((sleep) -> assertThat(sleep).isLessThan(Duration.ofMillis(100)));
        });
    }

    @Test
    void anHourLongRetryAfterFailsFast() {
        this.server.stubFor(post("/v1/messages")
            .willReturn(aResponse().withStatus(429).withHeader("retry-after", "3600").withBody(RATE_LIMITED)));
        this.runner.run((context) -> {
            assertThatExceptionOfType(RetryAfterTooLongException.class)
                .isThrownBy(() -> call(context.getBean("anthropicRestClient", RestClient.class)))
                .satisfies((ex) -> {
                    assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofHours(1));
                    assertThat(ex.getClient()).isEqualTo("anthropic");
                    assertThat(ex.getModel()).isEqualTo("claude-opus-4-7");
                    assertThat(ex.getMessage()).contains("3600s").contains("max-retry-after");
                });
            this.server.verify(1, postRequestedFor(urlEqualTo("/v1/messages")));
            assertThat(RecordingSleeper.SLEEPS).isEmpty();
        });
    }

    @Test
    void connectionResetThenOkSucceeds() {
        script(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER), okJson());
        this.runner.run((context) -> {
            assertThat(call(context.getBean("anthropicRestClient", RestClient.class))).contains("msg_1");
            this.server.verify(2, postRequestedFor(urlEqualTo("/v1/messages")));
        });
    }

    @Test
    void retriesExhaustedCarryTheLastFailureAsCause() {
        this.server.stubFor(post("/v1/messages").willReturn(aResponse().withStatus(529).withBody(OVERLOADED)));
        this.runner.withPropertyValues("llm.throttle.retry.max-retries=2").run((context) -> {
            assertThatExceptionOfType(RetriesExhaustedException.class)
                .isThrownBy(() -> call(context.getBean("anthropicRestClient", RestClient.class)))
                .satisfies((ex) -> {
                    assertThat(ex).isInstanceOf(LlmThrottleException.class);
                    assertThat(ex.getCause()).isInstanceOf(HttpServerErrorException.class);
                    assertThat(((HttpServerErrorException) ex.getCause()).getStatusCode().value()).isEqualTo(529);
                });
            this.server.verify(3, postRequestedFor(urlEqualTo("/v1/messages")));
            assertThat(RecordingSleeper.SLEEPS).containsExactly(Duration.ofMillis(500), Duration.ofMillis(1000));
        });
    }

    @Test
    void otherRestClientsToAConfiguredHostAreThrottledButOtherHostsAreUntouched() {
        script(aResponse().withStatus(503), okJson());
        this.otherServer.stubFor(post("/v1/messages").willReturn(aResponse().withStatus(503)));
        this.runner.run((context) -> {
            RestClient.Builder builder = context.getBean(RestClient.Builder.class);
            RestClient plain = builder.build();
            String answer = callAt(plain, "http://localhost:" + this.server.port() + "/v1/messages");
            assertThat(answer).contains("msg_1");
            this.server.verify(2, postRequestedFor(urlEqualTo("/v1/messages")));
            assertThatExceptionOfType(HttpServerErrorException.ServiceUnavailable.class).isThrownBy(() -> plain.post()
                .uri("http://localhost:" + this.otherServer.port() + "/v1/messages")
                .contentType(MediaType.APPLICATION_JSON)
                .body(BODY)
                .retrieve()
                .body(String.class));
            this.otherServer.verify(1, postRequestedFor(urlEqualTo("/v1/messages")));
        });
    }

    @Test
    void otherRestClientsStreamTheBodiesOfRequestsToOtherHostsUnbuffered() {
        this.otherServer.stubFor(post("/upload").willReturn(ok()));
        script(okJson());
        this.runner.run((context) -> {
            RestClient plain = context.getBean(RestClient.Builder.class).build();
            plain.mutate().requestInterceptors((interceptors) -> assertThat(interceptors).isEmpty());
            plain.post()
                .uri("http://localhost:" + this.otherServer.port() + "/upload")
                .contentType(MediaType.APPLICATION_OCTET_STREAM)
                .body((StreamingHttpOutputMessage.Body) (out) -> out.write(new byte[4096]))
                .retrieve()
                .toBodilessEntity();
            // a buffered body is sent with its length; a streamed one in chunks
            this.otherServer.verify(1, postRequestedFor(urlEqualTo("/upload")).withoutHeader("Content-Length"));
            // requests to the configured host are still throttled (and buffered for
            // retries)
            String answer = callAt(plain, "http://localhost:" + this.server.port() + "/v1/messages");
            assertThat(answer).contains("msg_1");
            assertThat(context.getBean(LlmThrottleRegistry.class)
                .getClient("anthropic")
                .model("claude-opus-4-7")
                .getTotals()
                .snapshot()
                .calls()).isEqualTo(1);
        });
    }

    @Test
    void aRestClientGivenItsOwnRequestFactoryIsThrottledStill() {
        // as LangChain4j's Spring RestClient HTTP client does with Boot's builder
        script(aResponse().withStatus(503), okJson());
        this.otherServer.stubFor(post("/upload").willReturn(ok()));
        this.runner.run((context) -> {
            RestClient own = context.getBean(RestClient.Builder.class).requestFactory(jdkHttp11()).build();
            assertThat(callAt(own, "http://localhost:" + this.server.port() + "/v1/messages")).contains("msg_1");
            this.server.verify(2, postRequestedFor(urlEqualTo("/v1/messages")));
            own.post()
                .uri("http://localhost:" + this.otherServer.port() + "/upload")
                .contentType(MediaType.APPLICATION_OCTET_STREAM)
                .body((StreamingHttpOutputMessage.Body) (out) -> out.write(new byte[4096]))
                .retrieve()
                .toBodilessEntity();
            this.otherServer.verify(1, postRequestedFor(urlEqualTo("/upload")).withoutHeader("Content-Length"));
            RestClient copy = context.getBean(RestClient.Builder.class).clone().requestFactory(jdkHttp11()).build();
            this.server.resetAll();
            script(aResponse().withStatus(503), okJson());
            assertThat(callAt(copy, "http://localhost:" + this.server.port() + "/v1/messages")).contains("msg_1");
            this.server.verify(2, postRequestedFor(urlEqualTo("/v1/messages")));
        });
    }

    @Test
    void restTemplatesBuiltByBootAreThrottledToTheConfiguredHost() {
        script(aResponse().withStatus(503), okJson());
        this.runner.run((context) -> {
            RestTemplate template = context.getBean(RestTemplateBuilder.class).build();
            String answer = template.postForObject("http://localhost:" + this.server.port() + "/v1/messages",
                    new HttpEntity<>(BODY, jsonHeaders()), String.class);
            assertThat(answer).contains("msg_1");
            this.server.verify(2, postRequestedFor(urlEqualTo("/v1/messages")));
        });
    }

    @Test
    void theClientsOwnRestClientIsThrottledOnce() {
        script(aResponse().withStatus(529).withBody(OVERLOADED));
        this.runner.withPropertyValues("llm.throttle.retry.max-retries=1").run((context) -> {
            assertThatExceptionOfType(RetriesExhaustedException.class)
                .isThrownBy(() -> call(context.getBean("anthropicRestClient", RestClient.class)));
            // one pipeline: two attempts, not two of an outer around two of an inner
            this.server.verify(2, postRequestedFor(urlEqualTo("/v1/messages")));
        });
    }

    @Test
    void aDatedSnapshotAndAnAliasShareTheConfiguredModelsBucketAndAreSentAsNamed() {
        this.server.stubFor(post("/v1/messages").willReturn(okJson()));
        String opus = "llm.throttle.clients.anthropic.models.claude-opus-4-7.";
        this.runner
            .withPropertyValues(opus + "requests-per-minute=2", opus + "aliases[0]=opus-latest",
                    "llm.throttle.queue.max-wait=0s")
            .run((context) -> {
                RestClient restClient = context.getBean("anthropicRestClient", RestClient.class);
                callAs(restClient, "claude-opus-4-7-20260101");
                callAs(restClient, "opus-latest");
                // the two requests a minute are spent: the model's own name waits too
                assertThatExceptionOfType(LlmThrottleException.class)
                    .isThrownBy(() -> callAs(restClient, "claude-opus-4-7"))
                    .satisfies((ex) -> assertThat(ex.getModel()).isEqualTo("claude-opus-4-7"));
                ThrottledClient client = context.getBean(LlmThrottleRegistry.class).getClient("anthropic");
                assertThat(client.getModels()).containsOnlyKeys("claude-opus-4-7");
                assertThat(client.model("opus-latest")).isSameAs(client.model("claude-opus-4-7"));
                assertThat(client.model("claude-opus-4-7").getTotals().snapshot().succeeded()).isEqualTo(2);
                this.server.verify(1,
                        postRequestedFor(urlEqualTo("/v1/messages"))
                            .withRequestBody(com.github.tomakehurst.wiremock.client.WireMock
                                .containing("\"model\":\"claude-opus-4-7-20260101\"")));
                this.server.verify(1, postRequestedFor(urlEqualTo("/v1/messages")).withRequestBody(
                        com.github.tomakehurst.wiremock.client.WireMock.containing("\"model\":\"opus-latest\"")));
            });
    }

    private static String callAs(RestClient client, String model) {
        return client.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body(BODY.replace("claude-opus-4-7", model))
            .retrieve()
            .body(String.class);
    }

    @Test
    void aDeploymentWithItsOwnKeyGetsNoneOfTheCallersCredentials() {
        script(aResponse().withStatus(529).withBody(OVERLOADED));
        this.otherServer.stubFor(post("/v1/messages").willReturn(okJson()));
        String deployments = "llm.throttle.clients.anthropic.models.claude-opus-4-7.deployments.";
        this.runner
            .withPropertyValues(deployments + "primary.requests-per-minute=100",
                    deployments + "backup.base-url=http://localhost:" + this.otherServer.port(),
                    deployments + "backup.api-key=backup-key")
            .run((context) -> {
                String answer = context.getBean("anthropicRestClient", RestClient.class)
                    .post()
                    .uri("/v1/messages")
                    .header("Authorization", "Bearer caller-token")
                    .contentType(MediaType.APPLICATION_JSON)
                    .body(BODY)
                    .retrieve()
                    .body(String.class);
                assertThat(answer).contains("msg_1");
                this.server.verify(1,
                        postRequestedFor(urlEqualTo("/v1/messages")).withHeader("x-api-key", equalTo("test-key"))
                            .withHeader("Authorization", equalTo("Bearer caller-token")));
                this.otherServer.verify(1,
                        postRequestedFor(urlEqualTo("/v1/messages")).withHeader("x-api-key", equalTo("backup-key"))
                            .withoutHeader("Authorization"));
            });
    }

    @Test
    void countTokensIsRetriedOn529And429ButTakesNothingOfTheModelNorGoesToADeployment() {
        String countTokens = "/v1/messages/count_tokens";
        scriptAt(countTokens, aResponse().withStatus(529).withBody(OVERLOADED),
                aResponse().withStatus(429).withHeader("retry-after", "1").withBody(RATE_LIMITED),
                ok("{\"input_tokens\":12}").withHeader("Content-Type", "application/json"));
        this.otherServer.stubFor(post(countTokens).willReturn(ok("{\"input_tokens\":12}")));
        String model = "llm.throttle.clients.anthropic.models.claude-opus-4-7.";
        this.runner
            .withPropertyValues(model + "requests-per-minute=10", model + "tokens-per-day=100",
                    model + "deployments.primary.requests-per-minute=10",
                    model + "deployments.backup.base-url=http://localhost:" + this.otherServer.port(),
                    model + "deployments.backup.api-key=backup-key")
            .run((context) -> {
                ThrottledClient client = context.getBean(LlmThrottleRegistry.class).getClient("anthropic");
                LimiterState.Available before = client.model("claude-opus-4-7").getLimiter().state().available();
                String answer = context.getBean("anthropicRestClient", RestClient.class)
                    .post()
                    .uri(countTokens)
                    .contentType(MediaType.APPLICATION_JSON)
                    .body(BODY)
                    .retrieve()
                    .body(String.class);
                assertThat(answer).contains("\"input_tokens\":12");
                this.server.verify(3,
                        postRequestedFor(urlEqualTo(countTokens)).withHeader("x-api-key", equalTo("test-key")));
                this.otherServer.verify(0, postRequestedFor(urlEqualTo(countTokens)));
                assertThat(RecordingSleeper.SLEEPS).hasSize(2).endsWith(Duration.ofSeconds(1));
                assertThat(client.model("claude-opus-4-7").getLimiter().state().available()).isEqualTo(before);
                assertThat(client.getModels().values())
                    .allSatisfy((state) -> assertThat(state.getTotals().snapshot().calls()).isZero());
                assertThat(context.getBean(TokenQuotas.class)
                    .states(Map.of("anthropic", List.of("claude-opus-4-7")))
                    .get(0)
                    .used()).isZero();
            });
    }

    @Test
    void batchesAndModelListsPassWhileTheModelsBucketIsEmpty() {
        script(okJson());
        this.server.stubFor(post("/v1/messages/batches").willReturn(ok("{\"id\":\"msgbatch_1\"}")));
        this.server.stubFor(get("/v1/models").willReturn(ok("{\"data\":[]}")));
        this.runner
            .withPropertyValues("llm.throttle.clients.anthropic.models.claude-opus-4-7.requests-per-minute=1",
                    "llm.throttle.queue.max-wait=1ms")
            .run((context) -> {
                RestClient client = context.getBean("anthropicRestClient", RestClient.class);
                assertThat(call(client)).contains("msg_1");
                // the minute's one request is taken: another call of the model waits
                assertThatExceptionOfType(LlmThrottleException.class).isThrownBy(() -> call(client));
                String batch = "{\"requests\":[{\"custom_id\":\"a\",\"params\":" + BODY + "}]}";
                assertThat(client.post()
                    .uri("/v1/messages/batches")
                    .contentType(MediaType.APPLICATION_JSON)
                    .body(batch)
                    .retrieve()
                    .body(String.class)).contains("msgbatch_1");
                assertThat(client.get().uri("/v1/models").retrieve().body(String.class)).contains("data");
                this.server.verify(1, postRequestedFor(urlEqualTo("/v1/messages/batches")));
                assertThat(context.getBean(LlmThrottleRegistry.class)
                    .getClient("anthropic")
                    .model("claude-opus-4-7")
                    .getTotals()
                    .snapshot()
                    .calls()).isEqualTo(2);
            });
    }

    @Test
    void aDownloadFromTheConfiguredHostReachesTheCallerAsItArrives() throws Exception {
        try (HalfwayDownload download = HalfwayDownload.start()) {
            this.runner.withPropertyValues("llm.throttle.clients.anthropic.base-url=" + download.baseUrl())
                .run((context) -> {
                    RestClient own = context.getBean("anthropicRestClient", RestClient.class);
                    assertThat(readHalfwayThenRest(own, "/v1/files/file_1/content", download))
                        .isEqualTo(HalfwayDownload.HALF);
                    RestClient plain = context.getBean(RestClient.Builder.class).build();
                    assertThat(readHalfwayThenRest(plain, download.baseUrl() + "/v1/files/file_1/content", download))
                        .isEqualTo(HalfwayDownload.HALF);
                });
            assertThat(download.wasReadHalfway()).isTrue();
            assertThat(download.requests()).isEqualTo(2);
        }
    }

    @Test
    void anUploadToTheConfiguredHostStreamsItsBody() {
        this.server.stubFor(post("/v1/files").willReturn(ok("{\"id\":\"file_1\"}")));
        this.runner.run((context) -> {
            RestClient own = context.getBean("anthropicRestClient", RestClient.class);
            RestClient plain = context.getBean(RestClient.Builder.class).build();
            for (RestClient client : List.of(own, plain)) {
                client.post()
                    .uri("http://localhost:" + this.server.port() + "/v1/files")
                    .contentType(MediaType.APPLICATION_OCTET_STREAM)
                    .body((StreamingHttpOutputMessage.Body) (out) -> out.write(new byte[4096]))
                    .retrieve()
                    .toBodilessEntity();
            }
            // a buffered body is sent with its length; a streamed one in chunks
            this.server.verify(2, postRequestedFor(urlEqualTo("/v1/files")).withoutHeader("Content-Length"));
        });
    }

    private static int readHalfwayThenRest(RestClient client, String uri, HalfwayDownload download) {
        return client.get().uri(uri).exchange((request, response) -> {
            InputStream body = response.getBody();
            assertThat(body.readNBytes(HalfwayDownload.HALF)).hasSize(HalfwayDownload.HALF);
            download.firstHalfRead();
            return body.readAllBytes().length;
        });
    }

    private static JdkClientHttpRequestFactory jdkHttp11() {
        return new JdkClientHttpRequestFactory(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
    }

    private static HttpHeaders jsonHeaders() {
        HttpHeaders headers = new HttpHeaders();
        headers.setContentType(MediaType.APPLICATION_JSON);
        return headers;
    }

    private com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder okJson() {
        return ok(SUCCESS).withHeader("Content-Type", "application/json");
    }

    private void script(com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder... responses) {
        scriptAt("/v1/messages", responses);
    }

    private void scriptAt(String path, com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder... responses) {
        String state = Scenario.STARTED;
        for (int i = 0; i < responses.length; i++) {
            String next = (i == responses.length - 1) ? state : "step-" + (i + 1);
            this.server.stubFor(post(path).inScenario("script")
                .whenScenarioStateIs(state)
                .willReturn(responses[i])
                .willSetStateTo(next));
            state = next;
        }
    }

    private static String callAt(RestClient client, String uri) {
        return client.post().uri(uri).contentType(MediaType.APPLICATION_JSON).body(BODY).retrieve().body(String.class);
    }

    private static String call(RestClient client) {
        return client.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body(BODY)
            .retrieve()
            .body(String.class);
    }

    @Configuration(proxyBeanMethods = false)
    static class RecordingSleeper {

        static final List<Duration> SLEEPS = new CopyOnWriteArrayList<>();

        /**
         * The wall clock of these tests, standing still: dates do not depend on the day.
         */
        static final Instant WALL_CLOCK = Instant.parse("2026-12-01T15:09:00Z");

        @Bean
        TimeSource recordingTimeSource() {
            return new SleeplessTimeSource(SLEEPS::add, () -> WALL_CLOCK);
        }

    }

}
