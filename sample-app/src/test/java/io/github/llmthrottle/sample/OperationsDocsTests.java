package io.github.llmthrottle.sample;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ready-made operations in {@code docs/operations} against the sample application's
 * own {@code /actuator/prometheus} after its demo burst: every metric that a query of the
 * Grafana dashboard or an alerting rule names is in the scrape, with the exact series
 * name (a histogram's {@code _bucket}, a counter's {@code _total}, ...), so that no panel
 * or alert goes silent because of a renamed or missing metric. Same application as
 * {@link SampleApplicationTests} (one context for both).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "demo.calls=30", "demo.threads=6", "llm.throttle.circuit.open-wait=2s" })
class OperationsDocsTests {

    static final Path DASHBOARD = Path.of("..", "docs", "operations", "grafana-dashboard.json");

    static final Path ALERTS = Path.of("..", "docs", "operations", "prometheus-alerts.yml");

    @LocalServerPort
    private int port;

    @Autowired
    private DemoRun demo;

    @Test
    void everyMetricTheDashboardAndTheAlertsQueryIsInTheScrape() throws Exception {
        this.demo.summary().get(120, TimeUnit.SECONDS);
        String scrape = RestClient.create("http://localhost:" + this.port)
            .get()
            .uri("/actuator/prometheus")
            .retrieve()
            .body(String.class);
        Set<String> series = scrape.lines()
            .filter((line) -> !line.isBlank() && !line.startsWith("#"))
            .map((line) -> line.split("[{ ]", 2)[0])
            .collect(Collectors.toCollection(TreeSet::new));
        Map<String, String> queries = new LinkedHashMap<>();
        queries.putAll(dashboardQueries());
        queries.putAll(alertExpressions());
        assertThat(queries).hasSizeGreaterThan(15);
        Set<String> referenced = new TreeSet<>();
        queries.forEach((where, query) -> {
            Set<String> names = PromQl.metricNames(query);
            assertThat(names).as("metrics named by %s: %s", where, query).isNotEmpty();
            referenced.addAll(names);
            assertThat(series).as("%s queries %s", where, names).containsAll(names);
        });
        // the panels and rules the operations need, each over llm-throttle's own meters
        assertThat(referenced).contains("llm_calls_seconds_count", "llm_requests_seconds_count",
                "llm_queue_wait_slo_seconds_bucket", "llm_queue_size", "llm_inflight", "llm_ratelimit_remaining",
                "llm_circuit_state", "llm_tokens_total", "llm_rejections_total", "llm_quota_used_tokens",
                "llm_quota_limit_tokens", "llm_budget_spent", "llm_budget_limit", "llm_cost_total",
                "gen_ai_client_operation_duration_seconds_bucket");
    }

    @Test
    void metricNamesAreTakenFromPromQlWithoutFunctionsLabelsOrVariables() {
        assertThat(PromQl.metricNames("histogram_quantile(0.95, sum by (le, priority) (rate("
                + "llm_queue_wait_slo_seconds_bucket{client=~\"$client\",model=~\"a{b}\"}[$__rate_interval])))"))
            .containsExactly("llm_queue_wait_slo_seconds_bucket");
        assertThat(PromQl.metricNames("max_over_time(a_b{source=\"server\"}[10m]) < 1 or on (client) c_total > 0"))
            .containsExactly("a_b", "c_total");
        assertThat(PromQl.metricNames("label_values(llm_calls_seconds_count{client=~\"$client\"}, model)"))
            .containsExactly("llm_calls_seconds_count");
    }

    private static Map<String, String> dashboardQueries() throws IOException {
        JsonNode dashboard = JsonMapper.builder().build().readTree(Files.readString(DASHBOARD));
        Map<String, String> queries = new LinkedHashMap<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                queries.put("panel '" + panel.path("title").asString() + "' " + target.path("refId").asString(),
                        target.path("expr").asString());
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if ("query".equals(variable.path("type").asString())) {
                queries.put("variable " + variable.path("name").asString(),
                        variable.path("query").path("query").asString());
            }
        }
        return queries;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> alertExpressions() throws IOException {
        Map<String, String> expressions = new LinkedHashMap<>();
        try (Reader reader = Files.newBufferedReader(ALERTS)) {
            Map<String, Object> rules = new Yaml().load(reader);
            for (Map<String, Object> group : (List<Map<String, Object>>) rules.get("groups")) {
                for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
                    expressions.put("alert " + rule.get("alert"), (String) rule.get("expr"));
                }
            }
        }
        return expressions;
    }

    /** The metric names a PromQL expression (or a Grafana label_values query) selects. */
    static final class PromQl {

        private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");

        private static final Pattern GROUPING = Pattern
            .compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");

        private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

        private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left",
                "group_right", "bool", "and", "or", "unless", "offset", "inf", "nan");

        private PromQl() {
        }

        static Set<String> metricNames(String query) {
            String text = STRING.matcher(query).replaceAll("\"\"");
            text = text.replaceAll("\\{[^}]*}", " ").replaceAll("\\[[^]]*]", " ");
            text = GROUPING.matcher(text).replaceAll(" ");
            text = text.replaceAll("\\$\\{?\\w+}?", " ");
            Set<String> names = new TreeSet<>();
            if (text.strip().startsWith("label_values(")) {
                // label_values(METRIC, LABEL): the label is no metric
                text = text.substring(text.indexOf('(') + 1, text.lastIndexOf(','));
            }
            Matcher identifier = IDENTIFIER.matcher(text);
            while (identifier.find()) {
                String name = identifier.group();
                if (!KEYWORDS.contains(name.toLowerCase(java.util.Locale.ROOT))
                        && !isFunction(text, identifier.end())) {
                    names.add(name);
                }
            }
            return names;
        }

        private static boolean isFunction(String text, int end) {
            for (int i = end; i < text.length(); i++) {
                char c = text.charAt(i);
                if (!Character.isWhitespace(c)) {
                    return c == '(';
                }
            }
            return false;
        }

    }

}
