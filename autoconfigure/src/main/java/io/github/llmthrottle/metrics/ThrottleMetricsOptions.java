package io.github.llmthrottle.metrics;

import java.time.Duration;
import java.util.List;

/**
 * How {@link ThrottleMetrics} shapes its meters.
 *
 * @param tenantTag whether event meters carry a {@code tenant} tag (one series per
 * tenant: off by default to keep cardinality bounded)
 * @param queueWaitPercentiles the percentiles {@code llm.queue.wait} publishes (0 to 1)
 * @param queueWaitSlos the service-level objective buckets of {@code llm.queue.wait.slo},
 * the queue wait as a histogram (none: no such timer)
 */
public record ThrottleMetricsOptions(boolean tenantTag, List<Double> queueWaitPercentiles,
        List<Duration> queueWaitSlos) {

    /**
     * Percentiles 0.5, 0.9, 0.95, 0.99; SLOs 100 ms, 500 ms, 1 s, 5 s, 10 s, 30 s, 1 min;
     * no tenant tag.
     */
    public static final ThrottleMetricsOptions DEFAULTS = new ThrottleMetricsOptions(false,
            List.of(0.5, 0.9, 0.95, 0.99),
            List.of(Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(5),
                    Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofMinutes(1)));

    public ThrottleMetricsOptions {
        queueWaitPercentiles = List.copyOf(queueWaitPercentiles);
        queueWaitSlos = List.copyOf(queueWaitSlos);
    }

}
