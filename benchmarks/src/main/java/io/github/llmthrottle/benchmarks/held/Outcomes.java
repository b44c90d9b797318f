package io.github.llmthrottle.benchmarks.held;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.RetriesExhaustedException;
import org.jspecify.annotations.Nullable;

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

    private final LongAdder interruptLost = new LongAdder();

    private final Map<String, Throwable> examples = new ConcurrentHashMap<>();

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
        String name = name(failure);
        count(name);
        this.examples.putIfAbsent(name, failure);
        if (isCancellation(failure)) {
            if (!Thread.currentThread().isInterrupted()) {
                this.interruptLost.increment();
            }
        }
        else if (!(failure instanceof LlmThrottleException)) {
            this.untyped.increment();
        }
    }

    /**
     * The calls that ended with their interruption (as a cancelled call must: an
     * {@link InterruptedIOException}, which the {@code RestClient} wraps) but whose
     * thread no longer had its interrupt flag.
     * @return the count
     */
    public long interruptLost() {
        return this.interruptLost.sum();
    }

    /**
     * Whether a call ended with its interruption: an {@link InterruptedIOException}
     * (interrupted while it waited for admission or to retry), or an {@link IOException}
     * with the thread's interrupt flag set (the HTTP client's own exception when the
     * exchange was interrupted, such as Spring's "Request was interrupted" for the JDK
     * client). A cancellation without the flag counts in {@link #interruptLost()}.
     */
    static boolean isCancellation(Throwable failure) {
        Throwable cause = (failure instanceof ResourceAccessException) ? failure.getCause() : failure;
        return cause instanceof InterruptedIOException
                || (cause instanceof IOException && Thread.currentThread().isInterrupted());
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
     * The first failure of each outcome, for a closer look at one that should not be.
     * @param outcome the outcome's name
     * @return the failure, or {@code null}
     */
    public @Nullable Throwable example(String outcome) {
        return this.examples.get(outcome);
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
