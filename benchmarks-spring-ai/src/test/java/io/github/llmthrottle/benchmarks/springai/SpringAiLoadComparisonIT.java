package io.github.llmthrottle.benchmarks.springai;

import java.time.Duration;

import io.github.llmthrottle.benchmarks.load.ContenderResult;
import io.github.llmthrottle.benchmarks.load.ContenderSpec;
import io.github.llmthrottle.benchmarks.load.LoadComparison;
import io.github.llmthrottle.benchmarks.load.LoadScenario;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks of the Spring AI contenders of the load comparison, not a benchmark: the one
 * without llm-throttle completes a tiny run within the limits, the throttled one gets
 * through a short overload (3 s at twice the limit, buckets drained first) without a
 * failed call and with few 429s, and the classpath holds Spring AI's SDK only. The
 * figures belong to the report.
 */
class SpringAiLoadComparisonIT {

    private static final LoadScenario TINY = LoadScenario.twiceTheLimit(Duration.ofSeconds(1))
        .withCallsPerSecond(5)
        .withDrain(false);

    @Test
    void defaultsCompleteATinyRunWithoutErrors() throws Exception {
        ContenderSpec defaults = SpringAiLoadComparison.contenders(TINY).get(0);
        assertThat(defaults.name()).contains("defaults");
        ContenderResult result = LoadComparison.run(TINY, defaults);
        assertThat(result.failures()).isEmpty();
        assertThat(result.succeeded()).isEqualTo(5);
        assertThat(result.attempts()).as("attempts the simulator saw").isEqualTo(5);
        assertThat(result.rateLimited()).isZero();
    }

    @Test
    void throttledChatClientCompletesAShortOverloadWithoutFailuresAndFewRateLimits() throws Exception {
        LoadScenario overload = LoadScenario.twiceTheLimit(Duration.ofSeconds(3));
        ContenderSpec throttled = SpringAiLoadComparison.contenders(overload).get(1);
        assertThat(throttled.name()).contains("llm-throttle");
        ContenderResult result = LoadComparison.run(overload, throttled);
        assertThat(result.calls()).isEqualTo(30);
        assertThat(result.failures()).isEmpty();
        assertThat(result.succeeded()).isEqualTo(30);
        assertThat(result.rateLimited()).as("429s").isLessThanOrEqualTo(2);
        assertThat(result.attempts()).isEqualTo(result.calls() + result.rateLimited());
    }

    @Test
    void theSdkContenderOfTheBenchmarksModuleIsNotOnThisClasspath() {
        // anthropic-java 3.14 is excluded: Spring AI's anthropic-java-core 2.52 is the
        // only SDK here
        assertThat(getClass().getClassLoader().getResource("com/anthropic/client/okhttp/AnthropicOkHttpClient.class"))
            .isNull();
        assertThat(getClass().getClassLoader().getResource("com/anthropic/client/AnthropicClient.class")).isNotNull();
    }

}
