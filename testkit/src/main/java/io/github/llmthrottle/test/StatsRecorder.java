package io.github.llmthrottle.test;

import java.time.Instant;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import org.jspecify.annotations.Nullable;

/** Thread-safe counters behind {@link SimulatorStats}, for all models and per model. */
final class StatsRecorder {

    enum Outcome {

        SUCCESS, RATE_LIMITED, OVERLOADED, OTHER_ERROR, RESET

    }

    private volatile Counters all = new Counters();

    private final ConcurrentHashMap<String, Counters> byModel = new ConcurrentHashMap<>();

    void attempt(@Nullable String model) {
        this.all.attempts.increment();
        if (model != null) {
            model(model).attempts.increment();
        }
    }

    void outcome(@Nullable String model, Outcome outcome) {
        this.all.outcome(outcome);
        if (model != null) {
            model(model).outcome(outcome);
        }
    }

    static Outcome outcomeOf(int status) {
        if (status < 400) {
            return Outcome.SUCCESS;
        }
        if (status == 429) {
            return Outcome.RATE_LIMITED;
        }
        return (status == 529) ? Outcome.OVERLOADED : Outcome.OTHER_ERROR;
    }

    void streamError(String model) {
        this.all.streamErrors.increment();
        model(model).streamErrors.increment();
    }

    void admitted(String model, long epochSecond, long inputTokens, long cacheRead, long cacheWrite) {
        for (Counters c : new Counters[] { this.all, model(model) }) {
            c.admitted.increment();
            c.inputTokens.add(inputTokens);
            c.cacheRead.add(cacheRead);
            c.cacheWrite.add(cacheWrite);
            c.inputPerSecond.computeIfAbsent(epochSecond, (s) -> new LongAdder()).add(inputTokens);
            c.admittedPerSecond.computeIfAbsent(epochSecond, (s) -> new LongAdder()).increment();
        }
    }

    void output(String model, long epochSecond, long outputTokens) {
        for (Counters c : new Counters[] { this.all, model(model) }) {
            c.outputTokens.add(outputTokens);
            c.outputPerSecond.computeIfAbsent(epochSecond, (s) -> new LongAdder()).add(outputTokens);
        }
    }

    void inFlight(String model, int global, int forModel) {
        this.all.maxConcurrent.accumulateAndGet(global, Math::max);
        model(model).maxConcurrent.accumulateAndGet(forModel, Math::max);
    }

    SimulatorStats snapshot() {
        return this.all.snapshot();
    }

    SimulatorStats snapshot(String model) {
        Counters c = this.byModel.get(model);
        return (c != null) ? c.snapshot() : new Counters().snapshot();
    }

    void reset() {
        this.all = new Counters();
        this.byModel.clear();
    }

    private Counters model(String model) {
        return this.byModel.computeIfAbsent(model, (m) -> new Counters());
    }

    private static final class Counters {

        final LongAdder attempts = new LongAdder();

        final LongAdder successes = new LongAdder();

        final LongAdder rateLimited = new LongAdder();

        final LongAdder overloaded = new LongAdder();

        final LongAdder otherErrors = new LongAdder();

        final LongAdder resets = new LongAdder();

        final LongAdder streamErrors = new LongAdder();

        final LongAdder admitted = new LongAdder();

        final LongAdder inputTokens = new LongAdder();

        final LongAdder outputTokens = new LongAdder();

        final LongAdder cacheRead = new LongAdder();

        final LongAdder cacheWrite = new LongAdder();

        final AtomicInteger maxConcurrent = new AtomicInteger();

        final ConcurrentSkipListMap<Long, LongAdder> inputPerSecond = new ConcurrentSkipListMap<>();

        final ConcurrentSkipListMap<Long, LongAdder> outputPerSecond = new ConcurrentSkipListMap<>();

        final ConcurrentSkipListMap<Long, LongAdder> admittedPerSecond = new ConcurrentSkipListMap<>();

        void outcome(Outcome outcome) {
            switch (outcome) {
                case SUCCESS -> this.successes.increment();
                case RATE_LIMITED -> this.rateLimited.increment();
                case OVERLOADED -> this.overloaded.increment();
                case OTHER_ERROR -> this.otherErrors.increment();
                case RESET -> this.resets.increment();
            }
        }

        SimulatorStats snapshot() {
            return new SimulatorStats(this.attempts.sum(), this.successes.sum(), this.rateLimited.sum(),
                    this.overloaded.sum(), this.otherErrors.sum(), this.resets.sum(), this.streamErrors.sum(),
                    this.admitted.sum(), this.inputTokens.sum(), this.outputTokens.sum(), this.maxConcurrent.get(),
                    series(this.inputPerSecond), series(this.outputPerSecond), this.cacheRead.sum(),
                    this.cacheWrite.sum(), series(this.admittedPerSecond));
        }

        private static NavigableMap<Instant, Long> series(Map<Long, LongAdder> bySecond) {
            NavigableMap<Instant, Long> result = new TreeMap<>();
            bySecond.forEach((second, adder) -> result.put(Instant.ofEpochSecond(second), adder.sum()));
            return result;
        }

    }

}
