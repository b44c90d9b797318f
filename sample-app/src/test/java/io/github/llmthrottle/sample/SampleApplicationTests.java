package io.github.llmthrottle.sample;

import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.test.LlmSimulator;
import org.apache.catalina.connector.Connector;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.servlet.context.ServletWebServerApplicationContext;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample application against its embedded simulated provider: a small demo burst
 * completes with a summary, the REST endpoints answer through {@code @Throttled} methods,
 * Spring AI's {@code ChatClient} calls are throttled and counted like the
 * {@code RestClient}'s, and the {@code llmthrottle} endpoint and health show every
 * configured model.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "demo.calls=30", "demo.threads=6" })
class SampleApplicationTests {

    @LocalServerPort
    private int port;

    @Autowired
    private DemoRun demo;

    @Autowired
    private ServletWebServerApplicationContext context;

    @Autowired
    private LlmSimulator simulator;

    @Autowired
    private AssistantService assistant;

    @Test
    void demoBurstEndsWithASummaryAndEveryCallAnswered() throws Exception {
        String summary = this.demo.summary().get(120, TimeUnit.SECONDS);
        assertThat(summary).contains("Summary").contains("REALTIME").contains("claude-sonnet-4-5");
        DemoRun.Progress progress = this.demo.progress();
        assertThat(progress.finished()).isEqualTo(30);
        assertThat(progress.failed()).isZero();
        assertThat(this.simulator.stats().attempts()).isGreaterThanOrEqualTo(30);
    }

    @Test
    void chatClientCallsAndStreamsAreCountedInTheEndpointTotalsOfTheirModel() throws Exception {
        // after the burst, so that only these calls move the totals
        this.demo.summary().get(120, TimeUnit.SECONDS);
        long attempts = this.simulator.stats(SimulatedProvider.SONNET).attempts();
        JsonNode before = sonnetTotals();
        Answer reply = this.assistant.draftReply(new AssistantService.Document("acme", "Where is my order?"));
        Answer report = this.assistant.streamReport(new AssistantService.AnalysisJob("globex", "token buckets"));
        assertThat(reply.text()).isNotBlank();
        assertThat(report.text()).isNotBlank();
        assertThat(reply.outputTokens()).isPositive();
        assertThat(report.outputTokens()).isPositive();
        JsonNode after = sonnetTotals();
        assertThat(after.path("calls").asLong() - before.path("calls").asLong()).isEqualTo(2);
        assertThat(after.path("succeeded").asLong() - before.path("succeeded").asLong()).isEqualTo(2);
        assertThat(after.path("outputTokens").asLong() - before.path("outputTokens").asLong())
            .isEqualTo(reply.outputTokens() + report.outputTokens());
        assertThat(after.path("inputTokens").asLong() - before.path("inputTokens").asLong())
            .isEqualTo(reply.inputTokens() + report.inputTokens());
        assertThat(this.simulator.stats(SimulatedProvider.SONNET).attempts() - attempts)
            .isEqualTo(after.path("attempts").asLong() - before.path("attempts").asLong());
    }

    @Test
    void servesOnLoopbackOnlyBecauseItsEndpointGrantsWrites() throws Exception {
        Connector connector = ((TomcatWebServer) this.context.getWebServer()).getTomcat().getConnector();
        Object address = connector.getProperty("address");
        assertThat(address).isInstanceOf(InetAddress.class);
        assertThat(((InetAddress) address).isLoopbackAddress()).isTrue();
    }

    @Test
    void askIsRoutedThroughTheThrottledService() {
        JsonNode answer = client().get()
            .uri("/api/ask?q={q}", "What is a token bucket?")
            .retrieve()
            .body(JsonNode.class);
        assertThat(answer.path("model").asString()).isIn("claude-opus-4-7", "claude-sonnet-4-5", "cache");
        assertThat(answer.path("text").asString()).isNotBlank();
    }

    @Test
    void endpointAndHealthShowEveryConfiguredModel() {
        JsonNode state = client().get().uri("/actuator/llmthrottle").retrieve().body(JsonNode.class);
        assertThat(state.path("clients").path("anthropic").path("models").has("claude-opus-4-7")).isTrue();
        assertThat(state.path("clients").path("anthropic").path("models").has("claude-sonnet-4-5")).isTrue();
        assertThat(state.path("clients").path("openai").path("models").has("gpt-4o-mini")).isTrue();
        assertThat(state.toString()).doesNotContain("sk-ant-simulated-demo-key")
            .doesNotContain("sk-simulated-demo-key");
        JsonNode readiness = client().get().uri("/actuator/health/readiness").retrieve().body(JsonNode.class);
        assertThat(readiness.path("status").asString()).isEqualTo("UP");
    }

    private JsonNode sonnetTotals() {
        JsonNode state = client().get().uri("/actuator/llmthrottle").retrieve().body(JsonNode.class);
        return state.path("clients").path("anthropic").path("models").path(SimulatedProvider.SONNET).path("totals");
    }

    private RestClient client() {
        return RestClient.create("http://localhost:" + this.port);
    }

}
