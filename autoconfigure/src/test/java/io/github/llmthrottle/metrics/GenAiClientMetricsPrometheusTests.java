package io.github.llmthrottle.metrics;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.llmthrottle.actuate.ObservedApplication;
import io.github.llmthrottle.client.ClientSettings;
import io.github.llmthrottle.client.ClientSettings.ModelSettings;
import io.github.llmthrottle.client.ThrottleSettings;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.test.Fault;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.observation.ChatModelMeterObservationHandler;
import org.springframework.ai.chat.observation.ChatModelObservationContext;
import org.springframework.ai.chat.observation.ChatModelObservationDocumentation;
import org.springframework.ai.chat.observation.DefaultChatModelObservationConvention;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.http.MediaType;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

import static io.github.llmthrottle.actuate.ObservedApplication.OPUS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The GenAI client metrics as Prometheus scrapes them: the names and buckets
 * OpenTelemetry's own exporter would give them, one set of labels per name, and no clash
 * with Spring AI's own {@code gen_ai.client.token.usage} counter.
 */
class GenAiClientMetricsPrometheusTests {

    private static final Pattern SERIES = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)\\{(.*)}\\s");

    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");

    @Test
    void scrapeHasEveryGenAiMetricWithTheConventionsNamesBucketsAndLabels() {
        try (ObservedApplication app = ObservedApplication.start("llm.throttle.metrics.gen-ai.enabled=true",
                "llm.throttle.metrics.gen-ai.token-usage=always")) {
            app.call(OPUS);
            stream(app);
            app.simulator().script(OPUS, Fault.status(400));
            assertThatExceptionOfType(HttpClientErrorException.class).isThrownBy(() -> app.call(OPUS));

            HttpResponse<String> response = app.get("/prometheus");
            assertThat(response.statusCode()).isEqualTo(200);
            List<String> lines = response.body().lines().filter((line) -> !line.startsWith("#")).toList();
            String opus = "gen_ai_operation_name=\"chat\",gen_ai_provider_name=\"anthropic\",gen_ai_request_model=\""
                    + OPUS + "\"";
            assertThat(lines)
                .anySatisfy((line) -> assertThat(line).startsWith(
                        "gen_ai_client_token_usage_bucket{" + opus + ",gen_ai_token_type=\"input\",le=\"16.0\"}"))
                .anySatisfy((line) -> assertThat(line).startsWith("gen_ai_client_token_usage_bucket{" + opus
                        + ",gen_ai_token_type=\"output\",le=\"6.7108864E7\"}"))
                .anySatisfy((line) -> assertThat(line).startsWith(
                        "gen_ai_client_operation_duration_seconds_bucket{error_type=\"\"," + opus + ",le=\"0.01\"}"))
                .anySatisfy((line) -> assertThat(line).startsWith(
                        "gen_ai_client_operation_duration_seconds_bucket{error_type=\"\"," + opus + ",le=\"81.92\"}"))
                .anySatisfy((line) -> assertThat(line)
                    .startsWith("gen_ai_client_operation_duration_seconds_count{error_type=\"400\"," + opus + "} 1"))
                .anySatisfy((line) -> assertThat(line)
                    .startsWith("gen_ai_client_operation_time_to_first_chunk_seconds_count{" + opus + "} 1"));
            assertThat(value(lines, "gen_ai_client_token_usage_count{" + opus + ",gen_ai_token_type=\"output\"}"))
                .isEqualTo(2);
            assertThat(value(lines, "gen_ai_client_operation_duration_seconds_count{error_type=\"\"," + opus + "}"))
                .isEqualTo(2);
            assertThat(bucketBoundaries(lines, "gen_ai_client_token_usage_bucket")).containsExactly("1.0", "4.0",
                    "16.0", "64.0", "256.0", "1024.0", "4096.0", "16384.0", "65536.0", "262144.0", "1048576.0",
                    "4194304.0", "1.6777216E7", "6.7108864E7", "+Inf");
            assertThat(bucketBoundaries(lines, "gen_ai_client_operation_duration_seconds_bucket")).containsExactly(
                    "0.01", "0.02", "0.04", "0.08", "0.16", "0.32", "0.64", "1.28", "2.56", "5.12", "10.24", "20.48",
                    "40.96", "81.92", "+Inf");
            // Prometheus holds one set of labels per name: the GenAI metrics, and the
            // timers Boot makes of the llm.throttle.* observations
            for (String name : List.of("gen_ai_client_token_usage_bucket",
                    "gen_ai_client_operation_duration_seconds_count",
                    "gen_ai_client_operation_time_to_first_chunk_seconds_count", "llm_throttle_call_seconds_count",
                    "llm_throttle_attempt_seconds_count")) {
                assertThat(labelSets(lines, name)).as(name).hasSize(1);
            }
            assertThat(lines).anySatisfy((line) -> assertThat(line).startsWith("llm_throttle_call_seconds_count{")
                .contains("outcome=\"failed\""));
            assertThat(labelSets(lines, "llm_throttle_call_seconds_count"))
                .containsExactly(new TreeSet<>(Set.of("client", "error", "model", "outcome", "priority")));
        }
    }

    @Test
    void springAisTokenCounterAndTheseMetricsLiveSideBySideWhenTheNameIsLeftToSpringAi() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        List<String> failures = new ArrayList<>();
        prometheus.config().onMeterRegistrationFailed((id, reason) -> failures.add(reason));
        GenAiClientMetrics metrics = new GenAiClientMetrics(prometheus, settings(), false);
        metrics.onUsage("anthropic", "opus", new Usage(12, 40));
        metrics.onCallCompleted("anthropic", "opus", Duration.ofMillis(800), null);
        springAiChatCall(prometheus);
        assertThat(failures).isEmpty();
        String scrape = prometheus.scrape();
        assertThat(scrape).contains("gen_ai_client_token_usage_total{")
            .contains("gen_ai_client_operation_duration_seconds_bucket{")
            .doesNotContain("gen_ai_client_token_usage_bucket{");
    }

    @Test
    void bothTokenUsagesUnderOneNameWouldLoseOneOfThem() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        List<String> failures = new ArrayList<>();
        prometheus.config().onMeterRegistrationFailed((id, reason) -> failures.add(reason));
        new GenAiClientMetrics(prometheus, settings(), true);
        springAiChatCall(prometheus);
        assertThat(failures).anySatisfy((reason) -> assertThat(reason).contains("gen_ai_client_token_usage"));
    }

    /** One ChatModel call as Spring AI observes it, with its own meter handler. */
    private static void springAiChatCall(PrometheusMeterRegistry prometheus) {
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(new ChatModelMeterObservationHandler(prometheus));
        ChatModelObservationContext context = ChatModelObservationContext.builder()
            .prompt(new Prompt("Hello", ChatOptions.builder().model("opus").build()))
            .provider("anthropic")
            .build();
        ChatModelObservationDocumentation.CHAT_MODEL_OPERATION
            .observation(null, new DefaultChatModelObservationConvention(), () -> context, observations)
            .observe(() -> context.setResponse(new ChatResponse(List.of(new Generation(new AssistantMessage("Hi"))),
                    ChatResponseMetadata.builder().model("opus").usage(new DefaultUsage(12, 40)).build())));
    }

    private static void stream(ObservedApplication app) {
        RestClient client = app.context().getBean("anthropicRestClient", RestClient.class);
        String events = client.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body("{\"model\":\"" + OPUS
                    + "\",\"stream\":true,\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}")
            .retrieve()
            .body(String.class);
        assertThat(events).contains("message_stop");
    }

    private static double value(List<String> lines, String series) {
        return lines.stream()
            .filter((line) -> line.startsWith(series + " "))
            .mapToDouble((line) -> Double.parseDouble(line.substring(series.length() + 1).trim().split(" ")[0]))
            .findFirst()
            .orElseThrow(() -> new AssertionError("No series " + series));
    }

    private static List<String> bucketBoundaries(List<String> lines, String name) {
        String first = lines.stream().filter((line) -> line.startsWith(name + "{")).findFirst().orElseThrow();
        String series = first.substring(0, first.indexOf("le=\""));
        List<String> boundaries = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith(series)) {
                Matcher le = Pattern.compile("le=\"([^\"]+)\"").matcher(line);
                if (le.find()) {
                    boundaries.add(le.group(1));
                }
            }
        }
        return boundaries;
    }

    private static Set<Set<String>> labelSets(List<String> lines, String name) {
        Set<Set<String>> sets = new java.util.HashSet<>();
        for (String line : lines) {
            Matcher series = SERIES.matcher(line);
            if (series.find() && series.group(1).equals(name)) {
                Set<String> labels = new TreeSet<>();
                Matcher label = LABEL.matcher(series.group(2));
                while (label.find()) {
                    labels.add(label.group(1));
                }
                labels.remove("le");
                sets.add(labels);
            }
        }
        assertThat(sets).as("series of " + name).isNotEmpty();
        return sets;
    }

    private static ThrottleSettings settings() {
        ClientSettings anthropic = ClientSettings
            .defaults("anthropic", ProviderDialect.ANTHROPIC, URI.create("https://api.anthropic.com"))
            .withModels(Map.of("opus", new ModelSettings("opus", ModelLimits.UNLIMITED, List.of())));
        return new ThrottleSettings(Map.of("anthropic", anthropic), 10, Duration.ofSeconds(30), null, Map.of());
    }

}
