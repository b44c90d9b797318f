package io.github.llmthrottle.benchmarks.held;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report of a {@link Soak}: the figures as lines of text, the trends after warm-up,
 * and the platform threads left at the end.
 */
final class SoakReport {

    private SoakReport() {
    }

    /**
     * The warm-up left out of the figures after it: the minute's burst, then the queue
     * filling to max-wait's worth of calls (two minutes), or the first fifth of a longer
     * run, but at most half of the run.
     */
    private static double warmUpSeconds(Soak.Result result) {
        double offered = result.offered().toNanos() / 1e9;
        return Math.min(offered / 2, Math.max(120, offered / 5));
    }

    /**
     * The least squares slope of a series over the samples after warm-up (the first fifth
     * of the run), per minute.
     */
    private static double slopePerMinute(Soak.Result result, java.util.function.ToDoubleFunction<SoakSample> value) {
        double warmUp = warmUpSeconds(result);
        List<SoakSample> steady = result.samples()
            .stream()
            .filter((sample) -> sample.seconds() >= warmUp && sample.seconds() <= result.offered().toNanos() / 1e9 + 1)
            .toList();
        int n = steady.size();
        if (n < 2) {
            return Double.NaN;
        }
        double mx = steady.stream().mapToDouble(SoakSample::seconds).average().orElse(0);
        double my = steady.stream().mapToDouble(value).average().orElse(0);
        double sxy = 0;
        double sxx = 0;
        for (SoakSample sample : steady) {
            sxy += (sample.seconds() - mx) * (value.applyAsDouble(sample) - my);
            sxx += (sample.seconds() - mx) * (sample.seconds() - mx);
        }
        return (sxx > 0) ? sxy / sxx * 60 : Double.NaN;
    }

    /**
     * The figures, as lines of text.
     * @param result what the soak measured
     * @return the report
     */
    static String report(Soak.Result result) {
        StringBuilder text = new StringBuilder();
        text.append(String.format(Locale.ROOT, "calls: started %,d, ended %,d: %s%n", result.started(), result.ended(),
                Outcomes.format(result.outcomes())));
        text.append(String.format(Locale.ROOT, "offered for %.1f s; the last call ended %.1f s later%n",
                result.offered().toNanos() / 1e9, result.tail().toNanos() / 1e9));
        text.append(String.format(Locale.ROOT,
                "provider: %,d requests, %,d succeeded, %,d 429s, %,d 529s, %,d other errors, %,d connections "
                        + "reset%n",
                result.provider().attempts(), result.provider().successes(), result.provider().rateLimited(),
                result.provider().overloaded(), result.provider().otherErrors(), result.provider().connectionResets()));
        text.append("faults scheduled: ").append(result.faults()).append(System.lineSeparator());
        List<SoakSample> steady = result.samples()
            .stream()
            .filter((sample) -> sample.seconds() >= warmUpSeconds(result)
                    && sample.seconds() <= result.offered().toNanos() / 1e9 + 1)
            .toList();
        if (!steady.isEmpty()) {
            text.append(String.format(Locale.ROOT,
                    "after warm-up (%d samples): heap after GC %.1f–%.1f MB (slope %+.2f MB a minute), "
                            + "threads without callers and simulator %d–%d (slope %+.1f a minute)%n",
                    steady.size(), steady.stream().mapToLong(SoakSample::heapAfterGc).min().getAsLong() / 1048576.0,
                    steady.stream().mapToLong(SoakSample::heapAfterGc).max().getAsLong() / 1048576.0,
                    slopePerMinute(result, (sample) -> sample.heapAfterGc() / 1048576.0),
                    steady.stream().mapToInt(SoakSample::otherThreads).min().getAsInt(),
                    steady.stream().mapToInt(SoakSample::otherThreads).max().getAsInt(),
                    slopePerMinute(result, SoakSample::otherThreads)));
        }
        if (result.settings().redisPort() > 0) {
            StringBuilder outages = new StringBuilder();
            for (Duration[] outage : result.redisOutages()) {
                outages.append(String.format(Locale.ROOT, " %.1f–%.1f s", outage[0].toMillis() / 1000.0,
                        outage[1].toMillis() / 1000.0));
            }
            text.append(String.format(Locale.ROOT,
                    "Redis: store without Redis during%s; %,d calls succeeded meanwhile (on local buckets); "
                            + "%,d keys in Redis at the end%n",
                    (outages.length() > 0) ? outages : " (never)", result.succeededWithoutRedis(), result.redisKeys()));
        }
        text.append(String.format(Locale.ROOT,
                "at the end: inFlight %d, queued %d (every limiter); provider in flight %d%n", result.inFlight(),
                result.queued(), result.providerInFlight()));
        text.append("platform threads at the end: ").append(result.threadGroups()).append(System.lineSeparator());
        List<String> problems = result.problems();
        text.append(problems.isEmpty() ? "invariants: every call accounted for, all typed, nothing left behind"
                : "PROBLEMS: " + problems);
        return text.toString();
    }

    /** The live platform threads by name, digits left out, most numerous first. */
    static Map<String, Long> threadGroups() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<String, Long> groups = new java.util.TreeMap<>();
        for (ThreadInfo thread : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (thread != null) {
                groups.merge(thread.getThreadName().replaceAll("\\d+", "N"), 1L, Long::sum);
            }
        }
        Map<String, Long> sorted = new LinkedHashMap<>();
        groups.entrySet()
            .stream()
            .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
            .forEach((entry) -> sorted.put(entry.getKey(), entry.getValue()));
        return sorted;
    }

}
