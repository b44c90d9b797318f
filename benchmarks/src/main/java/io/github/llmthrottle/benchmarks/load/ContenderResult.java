package io.github.llmthrottle.benchmarks.load;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;

/**
 * What one contender achieved in one run.
 *
 * @param name the contender
 * @param calls calls offered
 * @param succeeded calls that returned a 200
 * @param failures failed calls by cause (exception type; {@code unfinished} for calls
 * still running at the deadline)
 * @param attempts HTTP requests the provider received
 * @param rateLimited 429 responses the provider sent
 * @param latencies sorted latencies of the successful calls, in nanoseconds, from the
 * moment the call was offered
 * @param inputTokensPerSecond input tokens the provider admitted per second while the
 * load was offered (whole seconds after the first)
 * @param inputTokensLimitPerSecond the provider's ITPM / 60
 * @param wall from the first call offered to the last call ended
 */
public record ContenderResult(String name, int calls, int succeeded, Map<String, Integer> failures, long attempts,
        long rateLimited, long[] latencies, double inputTokensPerSecond, double inputTokensLimitPerSecond,
        Duration wall) {

    public ContenderResult {
        latencies = latencies.clone();
        Arrays.sort(latencies);
        failures = Map.copyOf(failures);
    }

    /**
     * Calls that did not succeed.
     * @return failed calls
     */
    public int failed() {
        return this.calls - this.succeeded;
    }

    /**
     * The share of offered calls that succeeded.
     * @return between 0 and 1
     */
    public double successRate() {
        return (this.calls != 0) ? (double) this.succeeded / this.calls : 0;
    }

    /**
     * A percentile of the latency of successful calls (nearest rank).
     * @param percent between 0 and 100
     * @return the latency, zero if no call succeeded
     */
    public Duration latency(double percent) {
        return percentile(this.latencies, percent);
    }

    /**
     * A percentile of sorted latencies (nearest rank).
     * @param sorted latencies in nanoseconds, sorted
     * @param percent between 0 and 100
     * @return the latency, zero if there is none
     */
    static Duration percentile(long[] sorted, double percent) {
        if (sorted.length == 0) {
            return Duration.ZERO;
        }
        int rank = (int) Math.ceil(percent / 100 * sorted.length);
        return Duration.ofNanos(sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))]);
    }

    /**
     * Admitted input tokens against the limit while the load was offered.
     * @return the utilisation, 1.0 being the whole limit
     */
    public double utilisation() {
        return this.inputTokensPerSecond / this.inputTokensLimitPerSecond;
    }

}
