package io.github.llmthrottle.client;

import java.util.LinkedHashMap;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.matching.RequestPatternBuilder;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.okJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;

/**
 * What a deployment of a model receives of its caller's credentials, the same through
 * every adapter that sends attempts to deployments: a deployment with a key of its own
 * gets none of them (no other credential header, no organisation or project, no key in
 * the query), a deployment without one gets them all. One subclass per adapter sends an
 * OpenAI chat completion with the given headers and query parameters through it.
 */
public abstract class AbstractDeploymentCredentialsTests {

    /** The model, served by one deployment, {@code west}. */
    protected static final String MODEL = "gpt-4o-mini";

    /** The request body of a chat completion of {@link #MODEL}. */
    protected static final String BODY = """
            {"model":"gpt-4o-mini","max_completion_tokens":16,"messages":[{"role":"user","content":"Hello"}]}""";

    private static final String ANSWER = """
            {"id":"chatcmpl-1","object":"chat.completion","created":1767225600,"model":"gpt-4o-mini",
             "choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}],
             "usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}""";

    private final WireMockServer provider = new WireMockServer(wireMockConfig().dynamicPort());

    private final WireMockServer deployment = new WireMockServer(wireMockConfig().dynamicPort());

    @BeforeEach
    void startServers() {
        this.provider.start();
        this.deployment.start();
        this.deployment.stubFor(post(anyUrl()).willReturn(okJson(ANSWER)));
    }

    @AfterEach
    void stopServers() {
        this.provider.stop();
        this.deployment.stop();
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
     * Sends a chat completion of {@link #MODEL} through the adapter under test.
     * @param context the application context, with llm-throttle and its adapter hooks
     * @param baseUrl the base URL of the client ({@code .../v1}): the request goes to
     * {@code /chat/completions} below it
     * @param headers the headers the caller sends
     * @param query the query parameters the caller sends
     * @throws Exception when the call fails
     */
    protected abstract void send(ApplicationContext context, String baseUrl, Map<String, String> headers,
            Map<String, String> query) throws Exception;

    @Test
    void aDeploymentWithItsOwnKeyGetsNoneOfTheCallersCredentials() throws Exception {
        runner("llm.throttle.clients.openai.models." + MODEL + ".deployments.west.api-key=west-key").run((context) -> {
            send(context, baseUrl(this.provider), callersCredentials(), callersQuery());
            this.provider.verify(0, anyRequestedFor(anyUrl()));
            RequestPatternBuilder received = postRequestedFor(urlPathEqualTo("/v1/chat/completions"))
                .withHeader("Authorization", equalTo("Bearer west-key"))
                .withQueryParam("api-version", equalTo("2024-10-21"));
            for (String header : callersCredentials().keySet()) {
                if (!header.equals("Authorization")) {
                    received = received.withHeader(header, absent());
                }
            }
            for (String parameter : new String[] { "api-key", "key", "Key" }) {
                received = received.withQueryParam(parameter, absent());
            }
            this.deployment.verify(1, received);
        });
    }

    @Test
    void aDeploymentWithoutAKeyOfItsOwnGetsTheCallersCredentials() throws Exception {
        runner().run((context) -> {
            send(context, baseUrl(this.provider), callersCredentials(), callersQuery());
            RequestPatternBuilder received = postRequestedFor(urlPathEqualTo("/v1/chat/completions"))
                .withQueryParam("api-version", equalTo("2024-10-21"))
                .withQueryParam("key", equalTo("caller-query-key"));
            for (Map.Entry<String, String> header : callersCredentials().entrySet()) {
                // the JDK's HttpClient sends a Proxy-Authorization only to a proxy
                if (!header.getKey().equals("Proxy-Authorization")) {
                    received = received.withHeader(header.getKey(), equalTo(header.getValue()));
                }
            }
            this.deployment.verify(1, received);
        });
    }

    private ApplicationContextRunner runner(String... extra) {
        String deployments = "llm.throttle.clients.openai.models." + MODEL + ".deployments.";
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                    LlmThrottleAutoConfiguration.class))
            .withConfiguration(AutoConfigurations.of(autoConfigurations()))
            .withPropertyValues("llm.throttle.clients.openai.provider=openai",
                    "llm.throttle.clients.openai.base-url=" + baseUrl(this.provider),
                    deployments + "west.base-url=" + baseUrl(this.deployment), "llm.throttle.retry.max-retries=0")
            .withPropertyValues(extra);
    }

    /**
     * Credentials a caller may send, each in a header of its own: its OpenAI key,
     * organisation and project, and keys of other APIs.
     */
    private static Map<String, String> callersCredentials() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Authorization", "Bearer caller-key");
        headers.put("OpenAI-Organization", "org-caller");
        headers.put("OpenAI-Project", "proj_caller");
        headers.put("api-key", "caller-azure-key");
        headers.put("x-api-key", "caller-anthropic-key");
        headers.put("x-goog-api-key", "caller-google-key");
        headers.put("Proxy-Authorization", "Basic Y2FsbGVyOnNlY3JldA==");
        return headers;
    }

    /** A query with a key in it beside a parameter that is not a credential. */
    private static Map<String, String> callersQuery() {
        Map<String, String> query = new LinkedHashMap<>();
        query.put("api-version", "2024-10-21");
        query.put("api-key", "caller-query-key");
        query.put("key", "caller-query-key");
        return query;
    }

    private static String baseUrl(WireMockServer server) {
        return "http://localhost:" + server.port() + "/v1";
    }

}
