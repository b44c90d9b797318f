package io.github.llmthrottle.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The dashboard at {@code /} in a real headless browser (Debian's {@code chromium},
 * driven over the DevTools protocol), during a small demo burst against the embedded
 * simulator. Installs the browser when it is missing and this process may; skipped,
 * saying why, only when it cannot. Leaves the rendered page and a screenshot in
 * {@code target/dashboard-test/}.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "sample.simulator.enabled=true", "demo.calls=40", "demo.threads=16" })
@Timeout(90)
class DashboardBrowserIT {

    private static final String[] MODELS = { "claude-opus-4-7", "claude-sonnet-4-5", "claude-sonnet-4-5@us",
            "claude-sonnet-4-5@eu", "gpt-4o-mini" };

    private static final Path OUTPUT = Path.of("target", "dashboard-test");

    /**
     * How long the browser may take to start, or the page to show what is awaited: the
     * longest wait, never a delay, so that a loaded machine has room.
     */
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private static @Nullable HeadlessChromium chromium;

    @LocalServerPort
    private int port;

    private static @Nullable String missing;

    @BeforeAll
    static void startBrowser() throws IOException {
        missing = HeadlessChromium
            .ensureInstalled(Duration.ofSeconds(Long.getLong("chromium.install-timeout-seconds", 300)));
        if (missing != null) {
            System.err.println("Skipping the dashboard browser test: " + missing);
            return;
        }
        chromium = HeadlessChromium.launch(1400, 1000, PATIENCE);
    }

    @BeforeEach
    void requireBrowser() {
        // per test rather than in @BeforeAll, so that every test is reported as skipped,
        // with the reason
        assumeTrue(missing == null, () -> "Skipping the dashboard browser test: " + missing);
    }

    @AfterAll
    static void stopBrowser() {
        if (chromium != null) {
            chromium.close();
        }
    }

    @Test
    void showsACardPerModelWithLiveValues() throws Exception {
        chromium.navigate("http://127.0.0.1:" + this.port + "/");
        // three polls at least, so the charts have rates, and the demo strip has come in
        boolean polled = chromium.waitFor("Number(document.body.dataset.polls || 0) >= 3 "
                + "&& !document.querySelector('[data-testid=demo-progress]').hidden", PATIENCE);
        Files.createDirectories(OUTPUT);
        Files.writeString(OUTPUT.resolve("dashboard.html"), chromium.html());
        Files.write(OUTPUT.resolve("dashboard.png"), chromium.screenshot());
        assertThat(polled).as("the dashboard polled the endpoint three times (see %s)", OUTPUT).isTrue();

        JsonNode cards = chromium.evaluate("""
                Array.from(document.querySelectorAll('[data-testid=model-card]')).map(card => {
                  const text = id => (card.querySelector('[data-testid="' + id + '"]') || {}).textContent || '';
                  return { client: card.dataset.client, model: card.dataset.model, circuit: text('circuit'),
                    clientLine: text('client-name'), deploymentOf: card.dataset.deploymentOf || '',
                    requestsLimit: text('limit-requests'), requestsAvailable: text('available-requests'),
                    inputLimit: text('limit-input-tokens'), inFlight: text('in-flight'),
                    queued: text('queue-total'), calls: text('totals-calls'),
                    chartShapes: card.querySelectorAll('[data-testid=chart] path, [data-testid=chart] line').length };
                })""");
        Map<String, JsonNode> byModel = new HashMap<>();
        cards.forEach((card) -> byModel.put(card.path("model").asString(), card));
        assertThat(byModel).as("cards %s", cards).containsOnlyKeys(MODELS);
        assertThat(byModel.get("claude-opus-4-7").path("client").asString()).isEqualTo("anthropic");
        assertThat(byModel.get("gpt-4o-mini").path("client").asString()).isEqualTo("openai");
        // the limits of application.yml, formatted
        assertThat(byModel.get("claude-opus-4-7").path("requestsLimit").asString()).isEqualTo("60");
        assertThat(byModel.get("claude-opus-4-7").path("inputLimit").asString()).isEqualTo("20k");
        assertThat(byModel.get("claude-sonnet-4-5").path("requestsLimit").asString()).isEqualTo("300");
        assertThat(byModel.get("gpt-4o-mini").path("inputLimit").asString()).isEqualTo("40k");
        // each deployment of Sonnet has its card, saying whose deployment it is, its own
        // limits
        assertThat(byModel.get("claude-sonnet-4-5@eu").path("deploymentOf").asString()).isEqualTo("claude-sonnet-4-5");
        assertThat(byModel.get("claude-sonnet-4-5@eu").path("clientLine").asString())
            .endsWith("deployment of claude-sonnet-4-5");
        assertThat(byModel.get("claude-sonnet-4-5@eu").path("requestsLimit").asString()).isEqualTo("120");
        assertThat(byModel.get("claude-sonnet-4-5").path("deploymentOf").asString()).isEmpty();
        for (JsonNode card : cards) {
            assertThat(card.path("circuit").asString()).as("circuit of %s", card).isIn("CLOSED", "HALF OPEN", "OPEN");
            assertThat(card.path("requestsAvailable").asString()).as("available of %s", card).matches("\\d.*");
            assertThat(card.path("inFlight").asString()).as("in flight of %s", card).matches("\\d.*");
            assertThat(card.path("queued").asString()).as("queued of %s", card).matches("\\d.*");
            assertThat(card.path("calls").asString()).as("calls of %s", card).matches("\\d.*");
            assertThat(card.path("chartShapes").asInt()).as("chart of %s", card).isPositive();
        }
        // the burst has gone through the throttle, and the header adds it up
        long calls = 0;
        for (JsonNode card : cards) {
            calls += Long.parseLong(card.path("calls").asString());
        }
        assertThat(calls).as("calls shown on the cards").isPositive();
        assertThat(chromium.evaluate("document.querySelector('[data-testid=total-calls]').textContent").asString())
            .matches("\\d+");
        assertThat(chromium.evaluate("document.querySelector('[data-testid=demo-numbers]').textContent").asString())
            .contains("/ 40 calls");
        assertThat(chromium.evaluate("document.querySelector('[data-testid=unreachable-banner]').hidden").asBoolean())
            .isTrue();
    }

    @Test
    void saysSoWhenTheEndpointIsUnreachableAndKeepsPolling() throws Exception {
        chromium.navigate("http://127.0.0.1:" + this.port + "/?endpoint=actuator/no-such-endpoint");
        boolean banner = chromium.waitFor("!document.querySelector('[data-testid=unreachable-banner]').hidden",
                PATIENCE);
        assertThat(banner).as("unreachable banner shown").isTrue();
        assertThat(
                chromium.evaluate("document.querySelector('[data-testid=unreachable-detail]').textContent").asString())
            .contains("actuator/no-such-endpoint")
            .contains("Retrying");
        String first = chromium.evaluate("document.querySelector('[data-testid=last-updated]').textContent").asString();
        assertThat(chromium.waitFor("document.querySelector('[data-testid=last-updated]').textContent !== " + "'"
                + first.replace("'", "\\'") + "'", PATIENCE))
            .as("still polling after a failure")
            .isTrue();
    }

}
