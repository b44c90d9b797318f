package io.github.llmthrottle.restclient;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code RestClient} of a configured client against a provider that redirects to
 * another host, with each HTTP client Boot may choose that is on the test class path: the
 * key never reaches the other host.
 */
class ThrottledRestClientFactoryTests {

    private static final String BODY = """
            {"model":"claude-opus-4-7","max_tokens":64,"messages":[{"role":"user","content":"Hello"}]}""";

    private final WireMockServer provider = new WireMockServer(wireMockConfig().dynamicPort());

    private final WireMockServer otherHost = new WireMockServer(wireMockConfig().dynamicPort());

    @BeforeEach
    void start() {
        this.provider.start();
        this.otherHost.start();
        this.otherHost.stubFor(any(anyUrl()).willReturn(ok("{}").withHeader("Content-Type", "application/json")));
    }

    @AfterEach
    void stop() {
        this.provider.stop();
        this.otherHost.stop();
    }

    @ParameterizedTest(name = "{0} answering {1}, spring.http.clients.redirects={2}")
    @CsvSource({ "detected, 307, ''", "detected, 302, follow", "jdk, 307, ''", "jdk, 302, follow",
            "jdk, 308, follow-when-possible", "simple, 307, follow", "simple, 301, ''", "reactor, 307, follow",
            "reactor, 302, ''" })
    void aRedirectToAnotherHostReachesTheCallerAndTheKeyNeverLeaves(String factory, int status, String redirects) {
        this.provider.stubFor(post("/v1/messages").willReturn(aResponse().withStatus(status)
            .withHeader(HttpHeaders.LOCATION, "http://127.0.0.1:" + this.otherHost.port() + "/v1/messages")));
        runner(factory, redirects).run((context) -> {
            ResponseEntity<String> response = context.getBean("anthropicRestClient", RestClient.class)
                .post()
                .uri("/v1/messages")
                .header(HttpHeaders.AUTHORIZATION, "Bearer caller-token")
                .contentType(MediaType.APPLICATION_JSON)
                .body(BODY)
                .retrieve()
                .toEntity(String.class);
            assertThat(response.getStatusCode().value()).isEqualTo(status);
            assertThat(response.getHeaders().getLocation()).hasPort(this.otherHost.port());
            this.provider.verify(1, postRequestedFor(urlEqualTo("/v1/messages")));
            this.otherHost.verify(0, anyRequestedFor(anyUrl()));
        });
    }

    private ApplicationContextRunner runner(String factory, String redirects) {
        ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                    LlmThrottleAutoConfiguration.class))
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=http://localhost:" + this.provider.port(),
                    "llm.throttle.clients.anthropic.api-key=test-key",
                    "llm.throttle.clients.anthropic.default-model=claude-opus-4-7", "llm.throttle.retry.max-retries=0");
        if (!factory.equals("detected")) {
            runner = runner.withPropertyValues("spring.http.clients.imperative.factory=" + factory);
        }
        if (!redirects.isEmpty()) {
            runner = runner.withPropertyValues("spring.http.clients.redirects=" + redirects);
        }
        return runner;
    }

}
