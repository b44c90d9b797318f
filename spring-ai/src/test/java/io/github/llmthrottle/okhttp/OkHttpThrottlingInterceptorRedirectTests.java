package io.github.llmthrottle.okhttp;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.springai.autoconfigure.LlmThrottleSpringAiAutoConfiguration;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * The OkHttp interceptor against a configured provider that redirects to another host:
 * OkHttp follows redirects by default and drops only {@code Authorization} on the way, so
 * the interceptor sends a configured host's requests on a call that follows none, and the
 * 3xx reaches the caller with its {@code Location}. Requests to other hosts are left to
 * OkHttp.
 */
class OkHttpThrottlingInterceptorRedirectTests {

    private static final MediaType JSON = MediaType.get("application/json");

    private static final String BODY = """
            {"model":"claude-opus-4-7","max_tokens":64,"messages":[{"role":"user","content":"Hello"}]}""";

    private final WireMockServer provider = new WireMockServer(wireMockConfig().dynamicPort());

    private final WireMockServer otherHost = new WireMockServer(wireMockConfig().dynamicPort());

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.provider.start();
        this.otherHost.start();
        this.otherHost.stubFor(any(anyUrl()).willReturn(ok("{}").withHeader("Content-Type", "application/json")));
        this.runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LlmThrottleAutoConfiguration.class,
                    LlmThrottleSpringAiAutoConfiguration.class))
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + this.provider.baseUrl(),
                    "llm.throttle.retry.max-retries=0");
    }

    @AfterEach
    void stop() {
        this.provider.stop();
        this.otherHost.stop();
    }

    @ParameterizedTest(name = "{0} {1} answering {2}")
    @CsvSource({ "POST, /v1/messages, 301", "POST, /v1/messages, 302", "POST, /v1/messages, 303",
            "POST, /v1/messages, 307", "POST, /v1/messages, 308", "POST, /v1/messages/count_tokens, 302",
            "GET, /v1/files/file_1/content, 302", "POST, /v1/messages/batches, 307" })
    void aRedirectToAnotherHostReachesTheCallerAndNoCredentialLeaves(String method, String path, int status) {
        this.provider.stubFor(any(urlEqualTo(path)).willReturn(aResponse().withStatus(status)
            .withHeader("Location", this.otherHost.baseUrl() + "/elsewhere")
            .withHeader("Content-Type", "application/json")
            .withBody("{\"moved\":true}")));
        this.runner.run((context) -> {
            Request request = credentials(new Request.Builder().url(this.provider.baseUrl() + path))
                .method(method, method.equals("GET") ? null : RequestBody.create(BODY, JSON))
                .build();
            try (Response response = client(context).newCall(request).execute()) {
                assertThat(response.code()).isEqualTo(status);
                assertThat(response.header("Location")).isEqualTo(this.otherHost.baseUrl() + "/elsewhere");
                assertThat(response.body().string()).isEqualTo("{\"moved\":true}");
            }
            this.otherHost.verify(0, anyRequestedFor(anyUrl()));
        });
    }

    @Test
    void aRedirectOfTheConfiguredHostsEnqueuedCallReachesTheCaller() {
        this.provider.stubFor(any(urlEqualTo("/v1/messages"))
            .willReturn(aResponse().withStatus(302).withHeader("Location", this.otherHost.baseUrl() + "/elsewhere")));
        this.runner.run((context) -> {
            Request request = credentials(new Request.Builder().url(this.provider.baseUrl() + "/v1/messages"))
                .post(RequestBody.create(BODY, JSON))
                .build();
            CompletableFuture<Integer> status = new CompletableFuture<>();
            client(context).newCall(request).enqueue(new Callback() {

                @Override
                public void onResponse(Call call, Response response) {
                    try (response) {
                        status.complete(response.code());
                    }
                }

                @Override
                public void onFailure(Call call, IOException ex) {
                    status.completeExceptionally(ex);
                }

            });
            assertThat(status.get(20, TimeUnit.SECONDS)).isEqualTo(302);
            this.otherHost.verify(0, anyRequestedFor(anyUrl()));
        });
    }

    @Test
    void interceptorsAfterTheThrottlingOneStillSeeTheRequest() {
        this.provider.stubFor(any(urlEqualTo("/v1/files/file_1/content")).willReturn(ok("content")));
        this.runner.run((context) -> {
            Interceptor bearer = (chain) -> chain
                .proceed(chain.request().newBuilder().header("Authorization", "Bearer injected").build());
            OkHttpClient client = new OkHttpClient.Builder()
                .addInterceptor(context.getBean(OkHttpThrottlingInterceptor.class))
                .addInterceptor(bearer)
                .build();
            Request request = new Request.Builder().url(this.provider.baseUrl() + "/v1/files/file_1/content").build();
            try (Response response = client.newCall(request).execute()) {
                assertThat(response.body().string()).isEqualTo("content");
            }
            this.provider.verify(getRequestedFor(urlEqualTo("/v1/files/file_1/content")).withHeader("Authorization",
                    equalTo("Bearer injected")));
        });
    }

    @Test
    void aCallItsCallerCancelsEndsPromptlyThoughTheRequestIsSentOnACallOfItsOwn() {
        this.provider
            .stubFor(get(urlEqualTo("/v1/files/file_1/content")).willReturn(ok("content").withFixedDelay(10_000)));
        this.runner.run((context) -> {
            Call call = client(context)
                .newCall(new Request.Builder().url(this.provider.baseUrl() + "/v1/files/file_1/content").build());
            long start = System.nanoTime();
            CompletableFuture<Void> cancelled = CompletableFuture.runAsync(() -> {
                Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> this.provider.getAllServeEvents().size() == 1);
                call.cancel();
            });
            assertThatException().isThrownBy(call::execute);
            cancelled.get(20, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(8));
        });
    }

    @Test
    void aRedirectOfAnotherHostIsLeftToOkHttp() {
        WireMockServer thirdHost = new WireMockServer(wireMockConfig().dynamicPort());
        thirdHost.start();
        try {
            thirdHost.stubFor(get(urlEqualTo("/start")).willReturn(
                    aResponse().withStatus(302).withHeader("Location", this.otherHost.baseUrl() + "/elsewhere")));
            this.runner.run((context) -> {
                Request request = new Request.Builder().url(thirdHost.baseUrl() + "/start").build();
                try (Response response = client(context).newCall(request).execute()) {
                    assertThat(response.code()).isEqualTo(200);
                }
                this.otherHost.verify(1, getRequestedFor(urlEqualTo("/elsewhere")));
                assertThat(context.getBean(LlmThrottleRegistry.class).getClient("anthropic").getModels()).isEmpty();
            });
        }
        finally {
            thirdHost.stop();
        }
    }

    private static Request.Builder credentials(Request.Builder request) {
        return request.header("x-api-key", "test-key")
            .header("Authorization", "Bearer test-token")
            .header("anthropic-version", "2023-06-01")
            .header("OpenAI-Organization", "org-1")
            .header("OpenAI-Project", "proj-1");
    }

    private static OkHttpClient client(ApplicationContext context) {
        return new OkHttpClient.Builder().addInterceptor(context.getBean(OkHttpThrottlingInterceptor.class)).build();
    }

}
