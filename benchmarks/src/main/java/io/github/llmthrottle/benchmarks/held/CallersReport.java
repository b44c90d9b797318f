package io.github.llmthrottle.benchmarks.held;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The invariants and the report of a {@link ConcurrentCallers} run: the problems found,
 * the figures as lines of text and one Markdown table row.
 */
final class CallersReport {

    private CallersReport() {
    }

    /**
     * What went wrong, empty when every invariant held.
     * @param result what the run measured
     * @return the problems
     */
    static List<String> problems(ConcurrentCallers.Result result) {
        List<String> problems = new ArrayList<>();
        if (result.hung()) {
            problems.add((result.settings().callers() - result.ended()) + " calls had not ended");
        }
        if (result.started() != result.settings().callers() || result.ended() != result.started()) {
            problems.add("calls started " + result.started() + ", ended " + result.ended() + ", callers "
                    + result.settings().callers());
        }
        if (result.untyped() != 0) {
            problems.add(result.untyped() + " calls failed with an exception that is not an LlmThrottleException");
        }
        if (result.interruptLost() != 0) {
            problems.add(result.interruptLost() + " interrupted calls lost their thread's interrupt flag");
        }
        if (result.inFlight() != 0 || result.queued() != 0) {
            problems.add("left behind: inFlight " + result.inFlight() + ", queued " + result.queued());
        }
        if (result.providerInFlight() != 0) {
            problems.add("requests still open at the provider: " + result.providerInFlight());
        }
        long warmUp = result.settings().warmUp() / 8 * 8;
        if (result.totals().calls() != result.started() + warmUp) {
            problems.add("the endpoint's totals count " + result.totals().calls() + " calls, expected "
                    + (result.started() + warmUp));
        }
        return problems;
    }

    /**
     * The figures, as lines of text and one Markdown table row.
     * @param result what the run measured
     * @return the report
     */
    static String report(ConcurrentCallers.Result result) {
        StringBuilder text = new StringBuilder();
        text.append(String.format(Locale.ROOT, "burst taken before: %,d requests%n", result.drained()));
        if (result.settings().cancelEvery() > 0) {
            text.append(String.format(Locale.ROOT,
                    "callers interrupted while their call was running (every %d-th): %,d; their places in the "
                            + "queue back after %.0f ms (%,d places freed)%n",
                    result.settings().cancelEvery(), result.cancelled(), result.placesBack().toNanos() / 1e6,
                    result.placesFreed()));
        }
        text.append(String.format(Locale.ROOT, "calls: started %,d, ended %,d: %s%n", result.started(), result.ended(),
                Outcomes.format(result.outcomes())));
        text.append(String.format(Locale.ROOT, "provider saw %,d requests during the calls%n", result.attempts()));
        text.append(String.format(Locale.ROOT,
                "all arrived (ended, queued or in flight) after %.2f s, the model held until the heap "
                        + "was measured: %s; wall (release to last call ended) %.2f s%n",
                result.arrival().toNanos() / 1e9, result.held(), result.wall().toNanos() / 1e9));
        text.append(String.format(Locale.ROOT,
                "heap after GC: before callers %s, callers parked %s, %,.0f calls waiting %s; peak during the "
                        + "calls %s%n",
                mb(result.heapBefore()), mb(result.heapParked()), result.waiting(), mb(result.heapWaiting()),
                mb(result.peakHeap())));
        text.append(String.format(Locale.ROOT,
                "heap per waiting call (waiting minus parked, per waiting call): %s; per parked caller "
                        + "(its thread): %s%n",
                bytes(result.heapPerWaitingCall()), bytes(result.heapPerParkedCaller())));
        text.append(String.format(Locale.ROOT, "pinned virtual threads (JFR %s): %,d events, %,d of 20 ms or more%s%n",
                PinnedThreads.EVENT, result.pinned().events(), result.pinned().atLeast20ms(),
                result.pinned().where().isEmpty() ? "" : "; where: " + result.pinned().where()));
        text.append(String.format(Locale.ROOT,
                "at the end: inFlight %d, queued %d (every limiter); provider in flight %d; model state: "
                        + "inFlight %d, queued %s%n",
                result.inFlight(), result.queued(), result.providerInFlight(), result.state().inFlight(),
                result.state().queued()));
        text.append(String.format(Locale.ROOT,
                "endpoint totals: calls %,d, succeeded %,d, failed %,d, rejected %,d, attempts %,d%n",
                result.totals().calls(), result.totals().succeeded(), result.totals().failed(),
                result.totals().rejected(), result.totals().attempts()));
        Map<String, Long> others = new java.util.TreeMap<>(result.outcomes());
        others.keySet().removeAll(ConcurrentCallers.EXPECTED);
        if (!others.isEmpty()) {
            text.append("outcomes beyond the scenario's three (the provider failed or timed out): ")
                .append(Outcomes.format(others))
                .append(System.lineSeparator());
        }
        List<String> problems = result.problems();
        text.append(problems.isEmpty() ? "invariants: all calls accounted for, all typed, nothing left behind"
                : "PROBLEMS: " + problems);
        text.append(System.lineSeparator()).append(System.lineSeparator());
        text.append(String.format(Locale.ROOT, "| %,d %s | %s | %.1f s | %s | %s | %s | %,d (%,d ≥ 20 ms) | %d / %d |",
                result.settings().callers(), result.settings().threads(), Outcomes.format(result.outcomes()),
                result.wall().toNanos() / 1e9, mb(result.peakHeap()), bytes(result.heapPerWaitingCall()),
                bytes(result.heapPerParkedCaller()), result.pinned().events(), result.pinned().atLeast20ms(),
                result.inFlight(), result.queued()));
        return text.toString();
    }

    static String mb(long bytes) {
        return String.format(Locale.ROOT, "%,.1f MB", bytes / 1024.0 / 1024);
    }

    static String bytes(double bytes) {
        return (Math.abs(bytes) < 10_240) ? String.format(Locale.ROOT, "%,.0f B", bytes)
                : String.format(Locale.ROOT, "%,.1f KB", bytes / 1024);
    }

}
