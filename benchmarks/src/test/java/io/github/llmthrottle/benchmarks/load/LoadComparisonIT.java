package io.github.llmthrottle.benchmarks.load;

import java.time.Duration;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Sanity checks of the load comparison harness, not a benchmark: every contender
 * completes a tiny run of five calls, well within the simulator's limits, without errors
 * or 429s.
 */
class LoadComparisonIT {

    private static final LoadScenario TINY = LoadScenario.twiceTheLimit(Duration.ofSeconds(1))
        .withCallsPerSecond(5)
        .withDrain(false);

    static Stream<Arguments> contenders() {
        return ContenderSpec.all(TINY).stream().map((spec) -> Arguments.of(spec.name(), spec));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("contenders")
    void everyContenderCompletesATinyRunWithoutErrors(String name, ContenderSpec spec) throws Exception {
        ContenderResult result = LoadComparison.run(TINY, spec);
        assertThat(result.calls()).isEqualTo(5);
        assertThat(result.failures()).as("failures of %s", name).isEmpty();
        assertThat(result.succeeded()).isEqualTo(5);
        assertThat(result.attempts()).as("attempts the simulator saw").isEqualTo(5);
        assertThat(result.rateLimited()).isZero();
        // a bound against a hang, not a figure: the first contender pays class loading
        // and JIT,
        // and a busy 2-CPU machine once took 5.5 s
        assertThat(result.latency(99)).isLessThan(Duration.ofSeconds(30));
    }

    @Test
    void theReportScenarioOffersTwiceWhatTheProviderAdmits() {
        LoadScenario scenario = LoadScenario.twiceTheLimit(Duration.ofSeconds(20));
        assertThat(scenario.bindingCallsPerSecond()).isCloseTo(5, within(0.25));
        assertThat(scenario.calls()).isEqualTo(200);
        assertThat(ContenderSpec.all(scenario)).extracting(ContenderSpec::name)
            .contains("Resilience4j Retry + RateLimiter 5/s (hand-tuned to tokens)");
    }

    @Test
    void theShiftingScenarioGrowsPromptsHalfwayAndOffersTwiceTheAverageLimit() {
        LoadScenario scenario = LoadScenario.shiftingPrompts(Duration.ofSeconds(20));
        assertThat(scenario.calls()).isEqualTo(120);
        assertThat(tokens(scenario.prompt(0))).isBetween(50, 150);
        assertThat(tokens(scenario.prompt(59))).isBetween(50, 150);
        assertThat(tokens(scenario.prompt(60))).isBetween(500, 700);
        assertThat(tokens(scenario.prompt(119))).isBetween(500, 700);
        assertThat(scenario.averageInputTokens()).isCloseTo(350, within(15.0));
        assertThat(scenario.callsPerSecond() / scenario.bindingCallsPerSecond()).isBetween(1.9, 2.3);
        assertThat(ContenderSpec.all(scenario)).extracting(ContenderSpec::name)
            .anyMatch((name) -> name
                .matches("Resilience4j Retry \\+ RateLimiter 2\\.\\d\\d/s \\(hand-tuned to tokens\\)"));
    }

    @Test
    void theStartUpBurstSends256CallersAtTwiceTheLimitWithABurstBeyondTwentySecondsOfIt() {
        LoadScenario scenario = LoadScenario.startUpBurst(Duration.ofSeconds(20));
        assertThat(scenario.calls()).isEqualTo(256);
        assertThat(scenario.burst()).isEqualTo(128);
        assertThat(scenario.drain()).isFalse();
        assertThat(scenario.callsPerSecond() / scenario.bindingCallsPerSecond()).isBetween(1.9, 2.1);
        double burstTokens = scenario.burst() * scenario.averageInputTokens();
        assertThat(burstTokens).isGreaterThan(scenario.inputTokensPerMinute() / 3.0)
            .isLessThan(scenario.inputTokensPerMinute());
        assertThat(scenario.withBucketWindow(Duration.ofMinutes(1)).bucketWindow()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void theStartUpBurstAtEveryLimitOffersTwiceEachOneWithMaxTokensOfAFifthOfTheOutputBucket() {
        // --scenario burst --limits 300,60000,15000 --output 1024,50
        LoadScenario scenario = LoadScenario.startUpBurst(Duration.ofSeconds(20))
            .withLimits(300, 60_000, 15_000)
            .withOutput(1024, 50);
        double offered = scenario.callsPerSecond();
        assertThat(offered / (scenario.requestsPerMinute() / 60.0)).isEqualTo(2);
        assertThat(offered / (scenario.inputTokensPerMinute() / 60.0 / scenario.averageInputTokens())).isBetween(1.9,
                2.1);
        assertThat(offered / (scenario.outputTokensPerMinute() / 60.0 / scenario.outputTokens())).isEqualTo(2);
        assertThat(scenario.bindingCallsPerSecond()).isCloseTo(5, within(0.3));
        // the provider's 20 s output bucket (5,000) holds the max_tokens of four calls
        long outputBucket = scenario.outputTokensPerMinute() / 3;
        assertThat(outputBucket / scenario.maxTokens()).isEqualTo(4);
        assertThat(LoadComparison.describe(scenario)).contains("RPM 300", "OTPM 15,000", "max_tokens 1024",
                "50 output tokens");
        assertThat(scenario.withLatency(Duration.ofSeconds(1)).latency()).isEqualTo(Duration.ofSeconds(1));
    }

    private static int tokens(String prompt) {
        return (prompt.length() + 3) / 4;
    }

}
