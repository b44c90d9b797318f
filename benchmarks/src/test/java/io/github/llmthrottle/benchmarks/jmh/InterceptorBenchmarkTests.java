package io.github.llmthrottle.benchmarks.jmh;

import io.github.llmthrottle.client.ModelTotals;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sanity checks of the JMH benchmarks' set-up, not measurements: the throttled path
 * really goes through llm-throttle (and is admitted at once), and both paths return the
 * canned answer.
 */
class InterceptorBenchmarkTests {

    @Test
    void bothPathsReturnTheAnswerAndOnlyTheThrottledOneIsCounted() {
        InterceptorBenchmark benchmark = new InterceptorBenchmark();
        benchmark.start();
        try {
            assertThat(benchmark.withoutLlmThrottle()).contains("\"output_tokens\":50");
            for (int i = 0; i < 3; i++) {
                assertThat(benchmark.withLlmThrottle()).contains("\"output_tokens\":50");
            }
            ModelTotals.Snapshot totals = benchmark.registry()
                .getClient("anthropic")
                .model("claude-sonnet-4-5")
                .getTotals()
                .snapshot();
            assertThat(totals.calls()).isEqualTo(3);
            assertThat(totals.succeeded()).isEqualTo(3);
            assertThat(totals.outputTokens()).isEqualTo(150);
        }
        finally {
            benchmark.stop();
        }
    }

    @Test
    void onlyTheObservedPathIsObserved() {
        ObservationBenchmark benchmark = new ObservationBenchmark();
        benchmark.start();
        try {
            assertThat(benchmark.withoutObservationRegistry()).contains("\"output_tokens\":50");
            for (int i = 0; i < 3; i++) {
                assertThat(benchmark.withObservationsAsTimers()).contains("\"output_tokens\":50");
            }
            assertThat(benchmark.observedMeters().get("llm.throttle.call").timer().count()).isEqualTo(3);
            assertThat(benchmark.observedMeters().get("llm.throttle.attempt").timer().count()).isEqualTo(3);
        }
        finally {
            benchmark.stop();
        }
    }

    @Test
    void theLimiterAdmitsEveryCallAtOnce() throws InterruptedException {
        ModelLimiterBenchmark benchmark = new ModelLimiterBenchmark();
        for (int i = 0; i < 10_000; i++) {
            assertThat(benchmark.oneThread()).isNotNull();
        }
    }

    @Test
    void theReaderFindsTheModelInBothBodies() {
        for (int size : new int[] { 2048, 102_400 }) {
            RequestBodyReaderBenchmark benchmark = new RequestBodyReaderBenchmark();
            benchmark.bodyBytes = size;
            benchmark.createBody();
            assertThat(benchmark.read().model()).isEqualTo("claude-sonnet-4-5");
            assertThat(benchmark.read().bodyBytes()).isBetween(size - 200, size + 200);
        }
    }

}
