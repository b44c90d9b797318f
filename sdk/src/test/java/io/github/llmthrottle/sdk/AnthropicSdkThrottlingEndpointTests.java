package io.github.llmthrottle.sdk;

import java.io.InputStream;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.HttpResponse;
import com.anthropic.models.messages.MessageCountTokensParams;
import com.anthropic.models.messages.MessageTokensCount;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.HalfwayDownload;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.sdk.autoconfigure.LlmThrottleSdkAutoConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code anthropic-java} SDK hook with requests that are not model calls: token
 * counting, retried but never charged nor sent to a deployment, and a file download,
 * passed through as it arrives.
 */
class AnthropicSdkThrottlingEndpointTests {

    private static final String MODEL = "claude-sonnet-4-5";

    private static final String OVERLOADED = """
            {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}""";

    private final WireMockServer server = new WireMockServer(wireMockConfig().dynamicPort());

    private final WireMockServer backup = new WireMockServer(wireMockConfig().dynamicPort());

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.server.start();
        this.backup.start();
        String model = "llm.throttle.clients.anthropic.models." + MODEL + ".";
        this.runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                            LlmThrottleAutoConfiguration.class, LlmThrottleSdkAutoConfiguration.class))
            .withPropertyValues("llm.throttle.retry.delay=1ms", "llm.throttle.retry.max-delay=5ms",
                    "llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + this.server.baseUrl(),
                    model + "requests-per-minute=10", model + "deployments.primary.requests-per-minute=10",
                    model + "deployments.backup.base-url=" + this.backup.baseUrl(),
                    model + "deployments.backup.api-key=backup-key");
    }

    @AfterEach
    void stop() {
        this.server.stop();
        this.backup.stop();
    }

    @Test
    void countTokensIsRetriedOn529ButTakesNothingOfTheModelNorGoesToADeployment() {
        String countTokens = "/v1/messages/count_tokens";
        this.server.stubFor(post(urlPathEqualTo(countTokens)).inScenario("retry")
            .whenScenarioStateIs(Scenario.STARTED)
            .willReturn(aResponse().withStatus(529).withHeader("Content-Type", "application/json").withBody(OVERLOADED))
            .willSetStateTo("recovered"));
        this.server.stubFor(post(urlPathEqualTo(countTokens)).inScenario("retry")
            .whenScenarioStateIs("recovered")
            .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody("{\"input_tokens\":9}")));
        this.runner.run((context) -> {
            MessageTokensCount count = sdkClient(context, this.server.baseUrl()).messages()
                .countTokens(MessageCountTokensParams.builder().model(MODEL).addUserMessage("Hello").build());
            assertThat(count.inputTokens()).isEqualTo(9);
            this.server.verify(2,
                    postRequestedFor(urlPathEqualTo(countTokens)).withHeader("x-api-key", equalTo("sdk-key")));
            this.backup.verify(0, postRequestedFor(urlPathEqualTo(countTokens)));
            assertThat(context.getBean(LlmThrottleRegistry.class).getClient("anthropic").getModels().values())
                .allSatisfy((state) -> {
                    assertThat(state.getTotals().snapshot().calls()).isZero();
                    assertThat(state.getLimiter().state().available().requests()).isEqualTo(10L);
                });
        });
    }

    @Test
    void aFileDownloadReachesTheCallerAsItArrives() throws Exception {
        try (HalfwayDownload download = HalfwayDownload.start()) {
            this.runner.withPropertyValues("llm.throttle.clients.anthropic.base-url=" + download.baseUrl())
                .run((context) -> {
                    try (HttpResponse response = sdkClient(context, download.baseUrl()).beta()
                        .files()
                        .download("file_1")) {
                        InputStream body = response.body();
                        // into an array: readNBytes(int) ends with a read of 0 bytes,
                        // which
                        // OkHttp's stream answers only once more bytes arrive
                        assertThat(body.readNBytes(new byte[HalfwayDownload.HALF], 0, HalfwayDownload.HALF))
                            .isEqualTo(HalfwayDownload.HALF);
                        download.firstHalfRead();
                        assertThat(body.readAllBytes()).hasSize(HalfwayDownload.HALF);
                    }
                });
            assertThat(download.wasReadHalfway()).isTrue();
        }
    }

    private static AnthropicClient sdkClient(ApplicationContext context, String baseUrl) {
        return AnthropicOkHttpClient.builder()
            .baseUrl(baseUrl)
            .apiKey("sdk-key")
            .addInterceptor(context.getBean(AnthropicSdkThrottling.class).interceptor("anthropic"))
            .maxRetries(0)
            .build();
    }

}
