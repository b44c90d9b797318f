package io.github.llmthrottle.benchmarks.load;

import java.time.Duration;
import java.util.List;

import io.github.llmthrottle.benchmarks.load.AgentScenario.AgentModel;
import io.github.llmthrottle.benchmarks.load.AgentWorkload.ModelResult;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Sanity checks of the agent workload harness, not a measurement: the scenario has the
 * shape the report describes, and a short run under the limits completes every call and
 * reads the prompt cache.
 */
class AgentWorkloadIT {

    @Test
    void theReportScenarioBindsOpusAtTenAndSonnetAtTwentyCallsASecondAndOffersOnePointThreeTimesThat() {
        AgentScenario cached = AgentScenario.of(true);
        AgentModel opus = cached.models().get(0);
        AgentModel sonnet = cached.models().get(1);
        assertThat(cached.bindingPerSecond(opus)).isCloseTo(10, within(0.01));
        assertThat(cached.bindingPerSecond(sonnet)).isCloseTo(20, within(0.01));
        assertThat(cached.bindingLimit(opus)).isEqualTo("RPM");
        assertThat(cached.offeredPerSecond(sonnet)).isCloseTo(26, within(0.01));
        assertThat(cached.calls(opus)).isEqualTo(260);
        AgentScenario uncached = cached.withCached(false);
        assertThat(uncached.bindingLimit(opus)).isEqualTo("ITPM");
        assertThat(uncached.bindingPerSecond(opus)).isCloseTo(2.15, within(0.01));
        assertThat(cached.body(opus, 5)).contains("\"cache_control\":{\"type\":\"ephemeral\"}")
            .hasSizeGreaterThan(4 * 31_000);
        assertThat(uncached.body(opus, 5)).doesNotContain("cache_control");
        assertThat(cached.real(cached.bucketWindow())).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void aShortRunUnderTheLimitsCompletesEveryCallAndReadsTheCache() throws Exception {
        AgentScenario scenario = AgentScenario.of(true).withDuration(Duration.ofSeconds(1)).withOverload(0.6);
        AgentWorkload.Run run = AgentWorkload.run(scenario);
        List<ModelResult> results = run.models();
        assertThat(results).hasSize(2);
        for (ModelResult result : results) {
            assertThat(result.failures()).as("failures of %s", result.model()).isEmpty();
            assertThat(result.succeeded()).isEqualTo(result.calls()).isPositive();
            assertThat(result.cacheWritten()).isPositive();
            assertThat(result.cacheRead()).isPositive();
            assertThat(result.admitted()).isNotEmpty();
        }
        assertThat(AgentWorkload.perSecond(List.of(run))).contains("claude-opus-4-7 cached (of 10.0)");
        assertThat(AgentWorkload.summary(List.of(run))).contains("| claude-sonnet-4-5 | cached |");
    }

}
