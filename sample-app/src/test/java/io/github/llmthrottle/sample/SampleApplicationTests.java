package io.github.llmthrottle.sample;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.test.LlmSimulator;
import org.apache.catalina.connector.Connector;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.servlet.context.ServletWebServerApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample application against its embedded simulated providers: a small demo burst
 * completes with a summary, the REST endpoints answer through {@code @Throttled} methods,
 * Spring AI's {@code ChatClient} calls are throttled and counted like the
 * {@code RestClient}'s, Sonnet's calls go on on one deployment while the other is
 * overloaded, questions go to the OpenAI-compatible provider (another client) while Opus
 * is out, and the {@code llmthrottle} endpoint and health show every configured model and
 * deployment.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "demo.calls=30", "demo.threads=6", "llm.throttle.circuit.open-wait=2s" })
class SampleApplicationTests {

    private static final String SONNET_US = SimulatedProvider.SONNET + "@us";

    private static final String SONNET_EU = SimulatedProvider.SONNET + "@eu";

    @LocalServerPort
    private int port;

    @Autowired
    private DemoRun demo;

    @Autowired
    private ServletWebServerApplicationContext context;

    @Autowired
    private LlmSimulator simulator;

    @Autowired
    @Qualifier("sonnetEuSimulator")
    private LlmSimulator sonnetEu;

    @Autowired
    @Qualifier("openAiSimulator")
    private LlmSimulator openAi;

    @Autowired
    private AssistantService assistant;

    @Test
    void demoBurstEndsWithASummaryAndEveryCallAnswered() throws Exception {
        String summary = this.demo.summary().get(120, TimeUnit.SECONDS);
        assertThat(summary).contains("Summary")
            .contains("REALTIME")
            .contains("claude-sonnet-4-5")
            .contains("questions answered by:")
            .contains("claude-sonnet-4-5 deployments:  claude-sonnet-4-5@us ")
            .contains("  claude-sonnet-4-5@eu ");
        DemoRun.Progress progress = this.demo.progress();
        assertThat(progress.finished()).isEqualTo(30);
        assertThat(progress.failed()).isZero();
        assertThat(
                this.simulator.stats().attempts() + this.sonnetEu.stats().attempts() + this.openAi.stats().attempts())
            .isGreaterThanOrEqualTo(30);
    }

    @Test
    void chatClientCallsAndStreamsAreCountedInTheEndpointTotalsOfTheirModel() throws Exception {
        // after the burst, so that only these calls move the totals
        providersAnswerAgain();
        long attempts = sonnetAttemptsOnTheSimulators();
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
        assertThat(sonnetAttemptsOnTheSimulators() - attempts)
            .isEqualTo(after.path("attempts").asLong() - before.path("attempts").asLong());
    }

    @Test
    void sonnetsCallsGoOnOnItsOtherDeploymentWhileOneIsOverloaded() throws Exception {
        providersAnswerAgain();
        long euSuccesses = this.sonnetEu.stats(SimulatedProvider.SONNET).successes();
        long usOverloaded = this.simulator.stats(SimulatedProvider.SONNET).overloaded();
        this.simulator.outage(SimulatedProvider.SONNET, Duration.ofMinutes(1));
        try {
            for (int i = 0; i < 4; i++) {
                Answer summary = this.assistant
                    .summarize(new AssistantService.Document("acme", "A long document about token buckets."));
                assertThat(summary.model()).isEqualTo(SimulatedProvider.SONNET);
                assertThat(summary.text()).isNotBlank();
            }
        }
        finally {
            this.simulator.endOutage(SimulatedProvider.SONNET);
        }
        // every call answered by eu, after us refused it or once us's circuit opened
        assertThat(this.sonnetEu.stats(SimulatedProvider.SONNET).successes() - euSuccesses).isEqualTo(4);
        assertThat(this.simulator.stats(SimulatedProvider.SONNET).overloaded() - usOverloaded).isPositive();
        JsonNode models = client().get()
            .uri("/actuator/llmthrottle")
            .retrieve()
            .body(JsonNode.class)
            .path("clients")
            .path("anthropic")
            .path("models");
        assertThat(models.path(SONNET_US).path("totals").path("overloaded").asLong()).isPositive();
        assertThat(models.path(SONNET_EU).path("totals").path("attempts").asLong()).isGreaterThanOrEqualTo(4);
    }

    @Test
    void questionsGoToTheOtherProvidersModelWhileOpusIsOut() throws Exception {
        providersAnswerAgain();
        long openAiAttempts = this.openAi.stats(SimulatedProvider.GPT).attempts();
        this.simulator.outage(SimulatedProvider.OPUS, Duration.ofMinutes(1));
        try {
            Answer answer = this.assistant.answer(new AssistantService.Question("What is a token bucket?"));
            assertThat(answer.model()).isEqualTo(SimulatedProvider.GPT);
            assertThat(answer.degraded()).isFalse();
            assertThat(answer.text()).isNotBlank();
        }
        finally {
            this.simulator.endOutage(SimulatedProvider.OPUS);
        }
        // answered by the OpenAI-compatible simulator, through the openai client
        assertThat(this.openAi.stats(SimulatedProvider.GPT).attempts() - openAiAttempts).isEqualTo(1);
        JsonNode opus = client().get()
            .uri("/actuator/llmthrottle/anthropic/" + SimulatedProvider.OPUS)
            .retrieve()
            .body(JsonNode.class);
        assertThat(opus.path("totals").path("fallbacks").asLong()).isPositive();
    }

    @Test
    void servesOnLoopbackOnlyBecauseItsEndpointGrantsWrites() throws Exception {
        Connector connector = ((TomcatWebServer) this.context.getWebServer()).getTomcat().getConnector();
        Object address = connector.getProperty("address");
        assertThat(address).isInstanceOf(InetAddress.class);
        assertThat(((InetAddress) address).isLoopbackAddress()).isTrue();
    }

    @Test
    void streamAnswersThroughTheThrottledWebClient() {
        String events = client().get()
            .uri("/api/stream?q={q}", "What is a token bucket?")
            .accept(MediaType.TEXT_EVENT_STREAM)
            .retrieve()
            .body(String.class);
        assertThat(events).startsWith("data:");
        assertThat(events.lines().filter((line) -> line.startsWith("data:")).count()).isGreaterThan(1);
    }

    @Test
    void askIsRoutedThroughTheThrottledService() {
        JsonNode answer = client().get()
            .uri("/api/ask?q={q}", "What is a token bucket?")
            .retrieve()
            .body(JsonNode.class);
        assertThat(answer.path("model").asString()).isIn("claude-opus-4-7", "gpt-4o-mini", "claude-sonnet-4-5",
                "cache");
        assertThat(answer.path("text").asString()).isNotBlank();
    }

    @Test
    void endpointAndHealthShowEveryConfiguredModelAndDeployment() {
        JsonNode state = client().get().uri("/actuator/llmthrottle").retrieve().body(JsonNode.class);
        JsonNode anthropic = state.path("clients").path("anthropic").path("models");
        assertThat(anthropic.has("claude-opus-4-7")).isTrue();
        assertThat(anthropic.has("claude-sonnet-4-5")).isTrue();
        assertThat(state.path("clients").path("openai").path("models").has("gpt-4o-mini")).isTrue();
        assertThat(anthropic.path(SimulatedProvider.SONNET).path("deployments").valueStream().map(JsonNode::asString))
            .containsExactly(SONNET_US, SONNET_EU);
        assertThat(anthropic.path(SONNET_EU).path("deploymentOf").asString()).isEqualTo(SimulatedProvider.SONNET);
        assertThat(anthropic.path(SONNET_EU).path("limits").path("requestsPerMinute").asLong()).isEqualTo(120);
        assertThat(anthropic.path(SONNET_US).path("limits").path("requestsPerMinute").asLong()).isEqualTo(300);
        // the client's budget of the day
        assertThat(state.path("quotas").valueStream())
            .anySatisfy((quota) -> assertThat(quota.path("scope").asString() + " " + quota.path("client").asString()
                    + " " + quota.path("window").asString() + " " + quota.path("limit").asLong())
                .isEqualTo("client anthropic day 20000000"));
        assertThat(state.toString()).doesNotContain("sk-ant-simulated-demo-key")
            .doesNotContain("sk-simulated-demo-key");
        JsonNode readiness = client().get().uri("/actuator/health/readiness").retrieve().body(JsonNode.class);
        assertThat(readiness.path("status").asString()).isEqualTo("UP");
        JsonNode health = client().get().uri("/actuator/health/llmThrottle").retrieve().body(JsonNode.class);
        assertThat(health.path("details").path("anthropic").has(SONNET_US)).isTrue();
        assertThat(health.path("details").path("anthropic").has(SONNET_EU)).isTrue();
    }

    /**
     * Waits for the end of the demo burst, whose simulated faults may outlast it, then
     * ends them and waits until no circuit is open (the test's open-wait is 2 s), so that
     * each test starts from providers that answer.
     */
    private void providersAnswerAgain() throws Exception {
        this.demo.summary().get(120, TimeUnit.SECONDS);
        this.simulator.clearFaults();
        this.sonnetEu.clearFaults();
        this.openAi.clearFaults();
        Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            JsonNode state = client().get().uri("/actuator/llmthrottle").retrieve().body(JsonNode.class);
            state.path("clients")
                .valueStream()
                .flatMap((client) -> client.path("models").valueStream())
                .forEach((model) -> assertThat(model.path("circuit").asString()).isNotEqualTo("OPEN"));
        });
    }

    private long sonnetAttemptsOnTheSimulators() {
        return this.simulator.stats(SimulatedProvider.SONNET).attempts()
                + this.sonnetEu.stats(SimulatedProvider.SONNET).attempts();
    }

    /**
     * Sonnet's totals: its calls are the model's, its attempts and tokens its
     * deployments'.
     */
    private JsonNode sonnetTotals() {
        JsonNode models = client().get()
            .uri("/actuator/llmthrottle")
            .retrieve()
            .body(JsonNode.class)
            .path("clients")
            .path("anthropic")
            .path("models");
        ObjectNode totals = JsonNodeFactory.instance.objectNode();
        for (String name : List.of(SimulatedProvider.SONNET, SONNET_US, SONNET_EU)) {
            models.path(name)
                .path("totals")
                .properties()
                .forEach((field) -> totals.put(field.getKey(),
                        totals.path(field.getKey()).asLong() + field.getValue().asLong()));
        }
        return totals;
    }

    private RestClient client() {
        return RestClient.create("http://localhost:" + this.port);
    }

}
