package io.github.llmthrottle.metrics;

import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.actuate.ObservedApplication;
import io.github.llmthrottle.test.Fault;
import org.junit.jupiter.api.Test;

import static io.github.llmthrottle.actuate.ObservedApplication.OPUS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code /actuator/prometheus} of a whole application after traffic against the simulator
 * shows every metric llm-throttle documents, tagged with client and model.
 */
class ThrottleMetricsPrometheusTests {

    @Test
    void prometheusShowsEveryContractMetricWithClientAndModelTags() {
        try (ObservedApplication app = ObservedApplication.start()) {
            app.call(OPUS);
            // a 429 asking for 1 s: the retry waits about a second in the queue
            app.simulator().script(OPUS, Fault.status(429).retryAfter("1"), Fault.ok());
            app.call(OPUS);
            app.simulator().script(OPUS, Fault.status(429).retryAfter("30"));
            assertThatExceptionOfType(AdmissionTimeoutException.class).isThrownBy(() -> app.call(OPUS));

            HttpResponse<String> response = app.get("/prometheus");
            assertThat(response.statusCode()).isEqualTo(200);
            List<String> lines = response.body().lines().filter((line) -> line.startsWith("llm_")).toList();
            Map<String, String> opus = Map.of("client", "anthropic", "model", OPUS);
            assertThat(value(lines, "llm_requests_seconds_count", opus, "outcome", "success", "status", "200"))
                .isEqualTo(2);
            assertThat(value(lines, "llm_requests_seconds_count", opus, "outcome", "rate_limited", "status", "429"))
                .isEqualTo(2);
            assertThat(value(lines, "llm_calls_seconds_count", opus, "outcome", "success")).isEqualTo(2);
            assertThat(value(lines, "llm_calls_seconds_count", opus, "outcome", "rejected")).isEqualTo(1);
            assertThat(value(lines, "llm_retries_total", opus, "reason", "429")).isEqualTo(2);
            assertThat(value(lines, "llm_retry_after_seconds_count", opus)).isEqualTo(2);
            assertThat(value(lines, "llm_retry_after_seconds_max", opus)).isEqualTo(30);
            assertThat(value(lines, "llm_queue_wait_seconds_count", opus, "priority", "normal")).isEqualTo(4);
            assertThat(value(lines, "llm_queue_wait_seconds", opus, "priority", "normal", "quantile", "0.99"))
                .isBetween(0.5, 1.5);
            // three admissions at once, however busy the machine; the retry about 1 s
            assertThat(value(lines, "llm_queue_wait_slo_seconds_bucket", opus, "priority", "normal", "le", "0.5"))
                .isEqualTo(3);
            assertThat(value(lines, "llm_queue_wait_slo_seconds_bucket", opus, "priority", "normal", "le", "5.0"))
                .isEqualTo(4);
            assertThat(value(lines, "llm_queue_size", opus, "priority", "realtime")).isZero();
            assertThat(value(lines, "llm_inflight", opus)).isZero();
            assertThat(value(lines, "llm_concurrency_limit", opus)).isBetween(1.0, 8.0);
            assertThat(value(lines, "llm_tokens_total", opus, "type", "input")).isPositive();
            assertThat(value(lines, "llm_tokens_total", opus, "type", "output")).isPositive();
            assertThat(value(lines, "llm_ratelimit_remaining", opus, "resource", "requests", "source", "local"))
                .isBetween(90.0, 100.0);
            assertThat(value(lines, "llm_ratelimit_remaining", opus, "resource", "requests", "source", "server"))
                .isBetween(990.0, 1000.0);
            assertThat(value(lines, "llm_ratelimit_remaining", opus, "resource", "input_tokens", "source", "local"))
                .isPositive();
            assertThat(value(lines, "llm_ratelimit_remaining", opus, "resource", "output_tokens", "source", "server"))
                .isPositive();
            assertThat(value(lines, "llm_fallbacks_total", opus, "from", OPUS, "to", ObservedApplication.SONNET))
                .isZero();
            assertThat(value(lines, "llm_rejections_total", opus, "reason", "max_wait")).isEqualTo(1);
            // every llm_ series carries client and model
            assertThat(lines).filteredOn((line) -> !line.startsWith("#"))
                .allSatisfy((line) -> assertThat(line).contains("client=\"anthropic\"").contains("model=\""));
            assertThat(response.body()).doesNotContain("tenant=");
        }
    }

    private static double value(List<String> lines, String name, Map<String, String> tags, String... more) {
        List<String> wanted = new java.util.ArrayList<>();
        tags.forEach((key, value) -> wanted.add(key + "=\"" + value + "\""));
        for (int i = 0; i < more.length; i += 2) {
            wanted.add(more[i] + "=\"" + more[i + 1] + "\"");
        }
        List<String> matching = lines.stream().filter((line) -> line.startsWith(name + "{")).filter((line) -> {
            List<String> labels = Arrays
                .asList(line.substring(line.indexOf('{') + 1, line.lastIndexOf('}')).split(","));
            return labels.containsAll(wanted) && labels.size() == wanted.size();
        }).toList();
        assertThat(matching).as(name + " " + wanted).hasSize(1);
        String line = matching.get(0);
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
    }

}
