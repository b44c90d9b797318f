package io.github.llmthrottle.test;

import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.jspecify.annotations.Nullable;

/**
 * The faults an {@link LlmSimulator} injects: scripts, outages, random faults,
 * concurrency caps and header overrides, each per model or for
 * {@link LlmSimulator#ANY_MODEL}. Thread-safe.
 */
final class SimulatorFaults {

    private volatile Random random;

    private final ConcurrentHashMap<String, RandomFaults> randomFaults = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<String, Queue<Fault>> scripts = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<String, Outage> outages = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<String, ConcurrencyLimit> concurrencyLimits = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<String, String> headerOverrides = new ConcurrentHashMap<>();

    private final Set<String> removedHeaders = ConcurrentHashMap.newKeySet();

    SimulatorFaults(long seed) {
        this.random = new Random(seed);
    }

    void script(String model, Fault... faults) {
        Queue<Fault> queue = this.scripts.computeIfAbsent(model, (m) -> new ConcurrentLinkedQueue<>());
        queue.addAll(Arrays.asList(faults));
    }

    int pendingScript(String model) {
        Queue<Fault> queue = this.scripts.get(model);
        return (queue != null) ? queue.size() : 0;
    }

    void setRandomFaults(String model, RandomFaults faults) {
        this.randomFaults.put(model, Objects.requireNonNull(faults, "faults"));
    }

    void setSeed(long seed) {
        this.random = new Random(seed);
    }

    void outage(String model, Instant until, Fault fault) {
        this.outages.put(model, new Outage(until, fault));
    }

    void endOutage(String model) {
        this.outages.remove(model);
    }

    void setConcurrencyLimit(String model, int maxInFlight, int rejectStatus) {
        if (maxInFlight <= 0) {
            this.concurrencyLimits.remove(model);
        }
        else {
            this.concurrencyLimits.put(model, new ConcurrencyLimit(maxInFlight, rejectStatus));
        }
    }

    void setHeader(String name, @Nullable String value) {
        String key = name.toLowerCase(Locale.ROOT);
        if (value == null) {
            this.headerOverrides.remove(key);
            this.removedHeaders.add(key);
        }
        else {
            this.removedHeaders.remove(key);
            this.headerOverrides.put(key, value);
        }
    }

    void clear() {
        this.scripts.clear();
        this.outages.clear();
        this.randomFaults.clear();
        this.concurrencyLimits.clear();
        this.headerOverrides.clear();
        this.removedHeaders.clear();
    }

    /**
     * Clears everything, then applies the built random faults (re-seeded) and concurrency
     * caps.
     */
    void reset(SimulatorConfig config) {
        clear();
        this.random = new Random(config.seed());
        this.randomFaults.putAll(config.randomFaults());
        this.concurrencyLimits.putAll(config.concurrencyLimits());
    }

    @Nullable Fault pollScript(String model) {
        Queue<Fault> own = this.scripts.get(model);
        Fault fault = (own != null) ? own.poll() : null;
        if (fault == null) {
            Queue<Fault> any = this.scripts.get(LlmSimulator.ANY_MODEL);
            fault = (any != null) ? any.poll() : null;
        }
        return fault;
    }

    @Nullable Fault activeOutage(String model, Instant now) {
        for (String key : new String[] { model, LlmSimulator.ANY_MODEL }) {
            Outage outage = this.outages.get(key);
            if (outage != null) {
                if (now.isBefore(outage.until())) {
                    return outage.fault();
                }
                this.outages.remove(key, outage);
            }
        }
        return null;
    }

    @Nullable ConcurrencyLimit exceededConcurrency(String model, int global, int forModel) {
        ConcurrencyLimit own = this.concurrencyLimits.get(model);
        if (own != null && forModel > own.max()) {
            return own;
        }
        ConcurrencyLimit all = this.concurrencyLimits.get(LlmSimulator.ANY_MODEL);
        return (all != null && global > all.max()) ? all : null;
    }

    @Nullable Fault randomFault(String model) {
        RandomFaults faults = this.randomFaults.get(model);
        if (faults == null) {
            faults = this.randomFaults.get(LlmSimulator.ANY_MODEL);
        }
        return (faults == null || faults.isNone()) ? null : faults.pick(this.random.nextDouble());
    }

    void overrideHeaders(Map<String, String> headers) {
        headers.putAll(this.headerOverrides);
        headers.keySet().removeAll(this.removedHeaders);
    }

    /** An outage of one model (or all) until an instant. */
    record Outage(Instant until, Fault fault) {
    }

    /** A cap on the requests in flight and the status beyond it. */
    record ConcurrencyLimit(int max, int status) {
    }

}
