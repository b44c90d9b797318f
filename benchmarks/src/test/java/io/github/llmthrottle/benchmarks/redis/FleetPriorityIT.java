package io.github.llmthrottle.benchmarks.redis;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Priority across a fleet, measured ({@link FleetPriorityLoad}, REPORT.md §4b): three
 * instances on the Redis server the tests use (127.0.0.1:6379, keys under a prefix of
 * their own) against the simulator, one flooding BATCH at three times the shared limit.
 * About 80 s.
 */
class FleetPriorityIT {

    @Test
    void aBatchFloodOnOneInstanceHoldsNeitherAnotherInstancesRealtimeNorTheLimit() throws Exception {
        FleetPriorityLoad.Result result = FleetPriorityLoad
            .run(new FleetPriorityLoad.Settings(6379, 1_200, Duration.ofSeconds(20)));
        System.out.println(result.report());
        assertThat(result.quiet().realtime()).as("REALTIME calls measured").hasSizeGreaterThan(100);
        assertThat(result.flood().realtimeRefused()).as("REALTIME calls refused under the flood").isZero();
        assertThat(result.realtimeP95Ratio()).as("REALTIME p95 with the flood over without").isLessThanOrEqualTo(1.5);
        assertThat(result.floodShareOfLimit()).as("fleet admitted under the flood, share of the limit")
            .isBetween(0.90, 1.05);
    }

}
