package io.github.llmthrottle.benchmarks.held;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.RetriesExhaustedException;

import org.springframework.web.client.ResourceAccessException;

/**
 * The outcome of every call of a run, counted by type: {@value #SUCCEEDED} for a call
 * that returned its 2xx body, otherwise the simple name of what it threw (a nested class
 * as {@code Outer.Inner}, an I/O error wrapped by the {@code RestClient} as
 * {@code ResourceAccessException(cause)}, retries exhausted with the last failure as
 * {@code RetriesExhaustedException(cause)}). A call is counted when it starts and when it
 * ends, so that {@link #started()} minus {@link #ended()} is the calls still running.
 * Thread-safe.
 */
public final class Outcomes {

    /** The outcome of a call that returned its 2xx body. */
    public static final String SUCCEEDED = "succeeded";

    private final LongAdder started = new LongAdder();

    private final Map<String, LongAdder> ended = new ConcurrentHashMap<>();

    private final LongAdder untyped = new LongAdder();

    /** Counts a call that starts. */
    public void start() {
        this.started.increment();
    }

    /** Counts a call that returned its 2xx body. */
    public void succeeded() {
        count(SUCCEEDED);
    }

    /**
     * Counts a call that threw.
     * @param failure what it threw
     */
    public void failed(Throwable failure) {
        count(name(failure));
        if (!(failure instanceof LlmThrottleException)) {
            this.untyped.increment();
        }
    }

    /**
     * The calls that failed with something else than an {@link LlmThrottleException} (the
     * library's typed exceptions).
     * @return the count
     */
    public long untyped() {
        return this.untyped.sum();
    }

    private void count(String outcome) {
        this.ended.computeIfAbsent(outcome, (name) -> new LongAdder()).increment();
    }

    /**
     * The calls started so far.
     * @return the count
     */
    public long started() {
        return this.started.sum();
    }

    /**
     * The calls ended so far, whatever their outcome.
     * @return the count
     */
    public long ended() {
        return this.ended.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /**
     * The calls ended so far, by outcome, in the order of their names.
     * @return outcome to count
     */
    public Map<String, Long> byOutcome() {
        Map<String, Long> snapshot = new TreeMap<>();
        this.ended.forEach((name, count) -> snapshot.put(name, count.sum()));
        return snapshot;
    }

    /**
     * The outcomes seen that are not among {@code expected}.
     * @param expected the outcomes a run may have
     * @return the others, with their counts
     */
    public Map<String, Long> unexpected(Set<String> expected) {
        Map<String, Long> others = byOutcome();
        others.keySet().removeAll(expected);
        return others;
    }

    /**
     * The name an outcome is counted under.
     * @param failure what a call threw
     * @return its name
     */
    static String name(Throwable failure) {
        if ((failure instanceof ResourceAccessException || failure instanceof RetriesExhaustedException)
                && failure.getCause() != null) {
            return simpleName(failure) + "(" + simpleName(failure.getCause()) + ")";
        }
        return simpleName(failure);
    }

    private static String simpleName(Throwable failure) {
        String name = failure.getClass().getName();
        return name.substring(name.lastIndexOf('.') + 1).replace('$', '.');
    }

    /**
     * The outcomes as {@code name count, name count}, for a line of output.
     * @param outcomes outcome to count
     * @return the text
     */
    static String format(Map<String, Long> outcomes) {
        StringBuilder text = new StringBuilder();
        outcomes.forEach((name, count) -> {
            if (text.length() > 0) {
                text.append(", ");
            }
            text.append(name).append(' ').append(String.format(java.util.Locale.ROOT, "%,d", count));
        });
        return (text.length() > 0) ? text.toString() : "none";
    }

}
