package io.github.llmthrottle.langchain4j;

import java.net.http.HttpClient;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.openai.OpenAiChatModel;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.langchain4j.autoconfigure.LlmThrottleLangChain4jAutoConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A LangChain4j model throttled through its default JDK client, built on a
 * {@code java.net.http.HttpClient} told to follow redirects, against a provider that
 * redirects to another host: the JDK client would send every header on, so the hook's
 * client follows none, and neither the key nor the organization or project reach the
 * other host.
 */
class LangChain4jThrottlingRedirectTests {

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
                    LlmThrottleLangChain4jAutoConfiguration.class))
            .withPropertyValues("llm.throttle.clients.openai.provider=openai",
                    "llm.throttle.clients.openai.base-url=" + this.provider.baseUrl() + "/v1",
                    "llm.throttle.retry.max-retries=0");
    }

    @AfterEach
    void stop() {
        this.provider.stop();
        this.otherHost.stop();
    }

    @ParameterizedTest(name = "{0} answering {1}")
    @CsvSource({ "ALWAYS, 302", "ALWAYS, 307", "NORMAL, 308" })
    void aRedirectToAnotherHostFailsTheCallAndNoCredentialLeaves(HttpClient.Redirect policy, int status) {
        this.provider.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(aResponse().withStatus(status)
            .withHeader("Location", this.otherHost.baseUrl() + "/v1/chat/completions")));
        this.runner.run((context) -> {
            ChatModel model = OpenAiChatModel.builder()
                .httpClientBuilder(context.getBean(LangChain4jThrottling.class)
                    .httpClientBuilder("openai",
                            JdkHttpClient.builder().httpClientBuilder(HttpClient.newBuilder().followRedirects(policy))))
                .baseUrl(this.provider.baseUrl() + "/v1")
                .apiKey("test-key")
                .organizationId("org-1")
                .projectId("proj-1")
                .modelName("gpt-4o-mini")
                .maxRetries(0)
                .build();
            assertThatException()
                .isThrownBy(() -> model.chat(ChatRequest.builder().messages(UserMessage.from("Hello")).build()));
            this.provider.verify(1, postRequestedFor(urlEqualTo("/v1/chat/completions")).withHeader("Authorization",
                    equalTo("Bearer test-key")));
            this.otherHost.verify(0, anyRequestedFor(anyUrl()));
        });
    }

}
