package io.github.llmthrottle.springai;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.okhttp.OkHttpThrottlingInterceptor;
import io.github.llmthrottle.springai.autoconfigure.LlmThrottleSpringAiAutoConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.model.anthropic.autoconfigure.AnthropicChatAutoConfiguration;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.containing;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.notContaining;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Spring AI 2.0.1's Anthropic chat model against scripted provider responses on a real
 * HTTP server (WireMock): a tool-calling conversation is throttled per HTTP call, and a
 * provider host that is not configured is left to Spring AI and its SDK alone, and a
 * redirect of the configured host never takes the key to another host.
 */
class SpringAiThrottlingWireMockTests {

    private static final String MODEL = "claude-sonnet-4-5";

    private static final String TOOL_USE = """
            {"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",
             "content":[{"type":"tool_use","id":"toolu_1","name":"currentTemperature","input":{"city":"Paris"}}],
             "stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":50,"output_tokens":20}}""";

    private static final String ANSWER = """
            {"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5",
             "content":[{"type":"text","text":"It is 21 degrees in Paris."}],
             "stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":80,"output_tokens":10}}""";

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
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    RestClientAutoConfiguration.class, LlmThrottleAutoConfiguration.class,
                    LlmThrottleSpringAiAutoConfiguration.class, ToolCallingAutoConfiguration.class,
                    AnthropicChatAutoConfiguration.class, ChatClientAutoConfiguration.class))
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + this.server.baseUrl(),
                    "spring.ai.anthropic.api-key=test", "spring.ai.anthropic.chat.model=" + MODEL,
                    "spring.ai.anthropic.chat.max-tokens=200");
    }

    @AfterEach
    void stop() {
        this.server.stop();
        this.otherServer.stop();
    }

    @Test
    void toolCallingConversationIsAdmittedAndSettledPerHttpCall() {
        this.server.stubFor(post(urlEqualTo("/v1/messages")).withRequestBody(notContaining("tool_result"))
            .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(TOOL_USE)));
        this.server.stubFor(post(urlEqualTo("/v1/messages")).withRequestBody(containing("tool_result"))
            .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(ANSWER)));
        this.runner.withPropertyValues("spring.ai.anthropic.base-url=" + this.server.baseUrl()).run((context) -> {
            String answer = chatClient(context).prompt("How warm is it in Paris?")
                .tools(new Weather())
                .advisors((advisor) -> advisor.param(ThrottleParametersAdvisor.TENANT, "acme"))
                .call()
                .content();
            assertThat(answer).isEqualTo("It is 21 degrees in Paris.");
            this.server.verify(2,
                    postRequestedFor(urlEqualTo("/v1/messages"))
                        .withHeader(OkHttpThrottlingInterceptor.TENANT_HEADER, absent())
                        .withHeader(OkHttpThrottlingInterceptor.PRIORITY_HEADER, absent()));
            ModelTotals.Snapshot totals = context.getBean(LlmThrottleRegistry.class)
                .getClient("anthropic")
                .model(MODEL)
                .getTotals()
                .snapshot();
            assertThat(totals.calls()).isEqualTo(2);
            assertThat(totals.attempts()).isEqualTo(2);
            assertThat(totals.succeeded()).isEqualTo(2);
            assertThat(totals.inputTokens()).isEqualTo(50 + 80);
            assertThat(totals.outputTokens()).isEqualTo(20 + 10);
        });
    }

    @Test
    void callToAnotherHostIsLeftToSpringAiAndItsSdk() {
        this.otherServer.stubFor(post(urlEqualTo("/v1/messages")).inScenario("overloaded")
            .whenScenarioStateIs(Scenario.STARTED)
            .willReturn(aResponse().withStatus(529).withHeader("Content-Type", "application/json").withBody(OVERLOADED))
            .willSetStateTo("recovered"));
        this.otherServer.stubFor(post(urlEqualTo("/v1/messages")).inScenario("overloaded")
            .whenScenarioStateIs("recovered")
            .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(ANSWER)));
        this.runner.withPropertyValues("spring.ai.anthropic.base-url=" + this.otherServer.baseUrl()).run((context) -> {
            assertThat(chatClient(context).prompt("How warm is it in Paris?").call().content())
                .isEqualTo("It is 21 degrees in Paris.");
            // the SDK's own retry, untouched: no x-should-retry from llm-throttle
            this.otherServer.verify(
                    postRequestedFor(urlEqualTo("/v1/messages")).withHeader("X-Stainless-Retry-Count", equalTo("1")));
            this.server.verify(0, postRequestedFor(urlEqualTo("/v1/messages")));
            assertThat(context.getBean(LlmThrottleRegistry.class).getClient("anthropic").getModels()).isEmpty();
        });
    }

    @ParameterizedTest(name = "answering {0}")
    @ValueSource(ints = { 302, 307 })
    void aRedirectToAnotherHostFailsTheCallAndTheKeyNeverLeaves(int status) {
        this.otherServer.stubFor(
                any(anyUrl()).willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(ANSWER)));
        this.server.stubFor(post(urlEqualTo("/v1/messages")).willReturn(
                aResponse().withStatus(status).withHeader("Location", this.otherServer.baseUrl() + "/v1/messages")));
        this.runner.withPropertyValues("spring.ai.anthropic.base-url=" + this.server.baseUrl()).run((context) -> {
            assertThatException()
                .isThrownBy(() -> chatClient(context).prompt("How warm is it in Paris?").call().content());
            this.server.verify(1,
                    postRequestedFor(urlEqualTo("/v1/messages")).withHeader("x-api-key", equalTo("test")));
            this.otherServer.verify(0, anyRequestedFor(anyUrl()));
        });
    }

    private static ChatClient chatClient(ApplicationContext context) {
        return context.getBean(ChatClient.Builder.class).build();
    }

    static class Weather {

        @Tool(description = "The current temperature in a city, in degrees Celsius")
        int currentTemperature(String city) {
            return 21;
        }

    }

}
