package io.github.llmthrottle.sample;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.llmthrottle.actuate.LlmThrottleHealthIndicator;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reference pages that only a running application can check, against the sample
 * application after its demo burst: {@code docs/reference/metrics.md} names exactly the
 * meters llm-throttle registers, each with exactly its tag keys, and
 * {@code docs/reference/endpoint.md} every detail the health component reports. Same
 * application as {@link OperationsDocsTests} and {@link SampleApplicationTests} (one
 * context for all).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "demo.calls=30", "demo.threads=6", "llm.throttle.circuit.open-wait=2s" })
class ReferenceDocsTests {

    static final Path REFERENCE = Path.of("..", "docs", "reference");

    /**
     * Meters of Spring AI's chat model observations, which share the {@code gen_ai}
     * prefix: with them in the context llm-throttle leaves
     * {@code gen_ai.client.token.usage} to Spring AI
     * ({@code llm.throttle.metrics.gen-ai.token-usage: detect}).
     */
    private static final Set<String> SPRING_AI_METERS = Set.of("gen_ai.client.operation",
            "gen_ai.client.operation.active", "gen_ai.client.token.usage");

    private static final List<String> METER_TABLES = List.of("llm-throttle's meters",
            "OpenTelemetry GenAI client metrics", "Meters of the observations");

    /** The details the health component reports for every model, whatever its state. */
    private static final Set<String> ALWAYS_REPORTED = Set.of("state", "circuit", "queued", "inFlight");

    @Autowired
    private DemoRun demo;

    @Autowired
    private MeterRegistry registry;

    @Autowired
    private LlmThrottleHealthIndicator health;

    @Test
    void everyMeterTheApplicationRegistersIsDocumentedWithItsTagsAndNoOther() throws Exception {
        this.demo.summary().get(120, TimeUnit.SECONDS);
        Map<String, Set<String>> registered = new TreeMap<>();
        for (Meter meter : this.registry.getMeters()) {
            String name = meter.getId().getName();
            if ((name.startsWith("llm.") || name.startsWith("gen_ai.")) && !SPRING_AI_METERS.contains(name)) {
                Set<String> tags = registered.computeIfAbsent(name, (key) -> new TreeSet<>());
                meter.getId().getTags().stream().map(Tag::getKey).forEach(tags::add);
            }
        }
        Map<String, Set<String>> documented = new TreeMap<>();
        for (String table : METER_TABLES) {
            for (List<String> row : rows("metrics.md", table)) {
                documented.put(codes(row.get(0)).get(0), new TreeSet<>(codes(row.get(2))));
            }
        }
        assertThat(documented).as("documented meters").containsKey("gen_ai.client.token.usage");
        documented.keySet().removeAll(SPRING_AI_METERS);
        assertThat(registered.keySet()).as("meters of the sample against metrics.md").isEqualTo(documented.keySet());
        registered.forEach((name, tags) -> assertThat(tags).as("tag keys of %s", name).isEqualTo(documented.get(name)));
    }

    @Test
    void everyHealthDetailIsDocumented() throws Exception {
        this.demo.summary().get(120, TimeUnit.SECONDS);
        Set<String> modelDetails = new TreeSet<>();
        rows("endpoint.md", "Details of a model").forEach((row) -> modelDetails.add(codes(row.get(0)).get(0)));
        Set<String> tenantDetails = new TreeSet<>();
        rows("endpoint.md", "Tenant details").forEach((row) -> tenantDetails.add(codes(row.get(0)).get(0)));
        Set<String> states = new TreeSet<>();
        rows("endpoint.md", "Health states").forEach((row) -> states.add(codes(row.get(0)).get(0)));
        assertThat(modelDetails).containsAll(ALWAYS_REPORTED);
        Health health = this.health.health();
        Set<String> reported = new TreeSet<>();
        int models = 0;
        for (Map.Entry<String, Object> detail : health.getDetails().entrySet()) {
            if (detail.getValue() instanceof Map<?, ?> clientModels) {
                for (Object model : clientModels.values()) {
                    Set<String> keys = new TreeSet<>();
                    ((Map<?, ?>) model).keySet().forEach((key) -> keys.add((String) key));
                    reported.addAll(keys);
                    assertThat(keys).as("details of every model").containsAll(ALWAYS_REPORTED);
                    assertThat(states).as("documented states")
                        .contains(String.valueOf(((Map<?, ?>) model).get("state")));
                    models++;
                }
            }
            else {
                assertThat(tenantDetails).as("documented tenant details").contains(detail.getKey());
            }
        }
        assertThat(models).isGreaterThanOrEqualTo(4);
        assertThat(modelDetails).as("documented details of a model").containsAll(reported);
    }

    private static List<List<String>> rows(String page, String heading) throws IOException {
        List<List<String>> rows = new ArrayList<>();
        String section = "";
        for (String line : Files.readString(REFERENCE.resolve(page), StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith("## ") || line.startsWith("### ")) {
                section = line.substring(line.indexOf(' ') + 1).strip();
            }
            else if (section.equals(heading) && line.startsWith("|---")) {
                rows.remove(rows.size() - 1);
            }
            else if (section.equals(heading) && line.startsWith("|")) {
                List<String> cells = new ArrayList<>();
                for (String cell : line.substring(1, line.lastIndexOf('|')).split("\\|", -1)) {
                    cells.add(cell.strip());
                }
                rows.add(cells);
            }
        }
        assertThat(rows).as("rows of %s, %s", page, heading).isNotEmpty();
        return rows;
    }

    private static List<String> codes(String cell) {
        List<String> codes = new ArrayList<>();
        Matcher code = Pattern.compile("`([^`]+)`").matcher(cell);
        while (code.find()) {
            codes.add(code.group(1));
        }
        return codes;
    }

}
