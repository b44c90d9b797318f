package io.github.llmthrottle.benchmarks.held;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.QueueFullException;
import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.benchmarks.memory.Heap;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.test.SimulatorStats;
import org.jspecify.annotations.Nullable;

/**
 * One sample of a soak: the heap, the threads, the calls and the provider's faults so
 * far.
 *
 * @param seconds seconds since the load started
 * @param heapAfterGc used heap after full collections, bytes
 * @param threads live platform threads
 * @param otherThreads the same without the callers' and the simulator's handler threads:
 * the library's, the HTTP client's, the JVM's
 * @param started calls started
 * @param outcomes calls ended, by outcome
 * @param queued calls waiting in the model's queue
 * @param inFlight the model's calls in flight
 * @param redisDown whether the store was serving without Redis ({@code null} for the
 * memory store)
 * @param provider the faults the provider answered so far
 */
public record SoakSample(double seconds, long heapAfterGc, int threads, int otherThreads, long started,
        Map<String, Long> outcomes, int queued, int inFlight, @Nullable Boolean redisDown,
        @Nullable ProviderFaults provider) {

    private static final List<String> COLUMNS = List.of(Outcomes.SUCCEEDED,
            AdmissionTimeoutException.class.getSimpleName(), QueueFullException.class.getSimpleName(),
            RetriesExhaustedException.class.getSimpleName());

    static final SoakSample HEADER = new SoakSample(-1, 0, 0, 0, 0, Map.of(), 0, 0, null, null);

    static SoakSample take(long start, Outcomes outcomes, ModelLimiter limiter, @Nullable StoreWatcher watcher,
            SimulatorStats provider) {
        long heap = Heap.usedAfterGc();
        LimiterState state = limiter.state();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int all = 0;
        int own = 0;
        for (ThreadInfo thread : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (thread != null) {
                all++;
                String name = thread.getThreadName();
                if (!name.startsWith(Soak.CALLER_PREFIX) && !name.startsWith("llm-simulator-")) {
                    own++;
                }
            }
        }
        return new SoakSample((System.nanoTime() - start) / 1e9, heap, all, own, outcomes.started(),
                outcomes.byOutcome(), state.queued().total(), state.inFlight(), (watcher != null) ? watcher.down : null,
                // only the counts: the provider's per-second series would make every
                // sample kept hold a copy of the run so far
                new ProviderFaults(provider.rateLimited(), provider.overloaded(), provider.connectionResets()));
    }

    /**
     * The calls ended, whatever their outcome.
     * @return the count
     */
    public long ended() {
        return this.outcomes.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The same sample, as taken {@code seconds} into the run. */
    SoakSample at(double seconds) {
        return new SoakSample(seconds, this.heapAfterGc, this.threads, this.otherThreads, this.started, this.outcomes,
                this.queued, this.inFlight, this.redisDown, this.provider);
    }

    /**
     * This sample as a row of the Markdown table, or the table's header.
     * @return the row
     */
    public String row() {
        if (this == HEADER) {
            return "| t (s) | heap after GC | threads | without callers, simulator | started | ended | running | succeeded | "
                    + "AdmissionTimeout | QueueFull | RetriesExhausted | other | queued | inFlight | 429s | 529s "
                    + "| resets | Redis |\n"
                    + "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|";
        }
        long other = ended() - COLUMNS.stream().mapToLong((name) -> this.outcomes.getOrDefault(name, 0L)).sum();
        ProviderFaults stats = this.provider;
        return String.format(Locale.ROOT,
                "| %.0f | %.1f MB | %d | %d | %,d | %,d | %,d | %,d | %,d | %,d | %,d | %,d | %d | %d | %,d | %,d | %,d "
                        + "| %s |",
                this.seconds, this.heapAfterGc / 1024.0 / 1024, this.threads, this.otherThreads, this.started, ended(),
                this.started - ended(), this.outcomes.getOrDefault(COLUMNS.get(0), 0L),
                this.outcomes.getOrDefault(COLUMNS.get(1), 0L), this.outcomes.getOrDefault(COLUMNS.get(2), 0L),
                this.outcomes.getOrDefault(COLUMNS.get(3), 0L), other, this.queued, this.inFlight,
                (stats != null) ? stats.rateLimited() : 0, (stats != null) ? stats.overloaded() : 0,
                (stats != null) ? stats.connectionResets() : 0,
                (this.redisDown == null) ? "–" : this.redisDown ? "down (local buckets)" : "up");
    }

    /**
     * The faults the provider answered so far.
     *
     * @param rateLimited 429s
     * @param overloaded 529s
     * @param connectionResets connections reset
     */
    public record ProviderFaults(long rateLimited, long overloaded, long connectionResets) {

    }

}
