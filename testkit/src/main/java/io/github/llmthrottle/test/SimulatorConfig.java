package io.github.llmthrottle.test;

import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The immutable configuration an {@link LlmSimulator} is started with, and restored to by
 * {@link LlmSimulator#reset()}; {@link Draft} collects it for
 * {@link LlmSimulator.Builder}.
 */
record SimulatorConfig(int port, Map<String, ModelLimits> limits, ModelLimits defaultLimits, Duration baseLatency,
        Duration perTokenLatency, OutputTokens outputTokens, Map<String, RandomFaults> randomFaults,
        Map<String, SimulatorFaults.ConcurrencyLimit> concurrencyLimits, long seed, Clock clock, Set<String> apiKeys,
        boolean requireApiKey, int tokensPerEvent, boolean roundRemaining, int threads, Duration bucketWindow,
        int minimumCacheableTokens, long countTokensRequestsPerMinute, long downloadBytes) {

    static final Clock SYSTEM_CLOCK = Clock.systemUTC();

    static Duration nonNegative(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("Duration must not be negative: " + duration);
        }
        return duration;
    }

    static int minimumCacheableTokens(int tokens) {
        if (tokens < 1) {
            throw new IllegalArgumentException(
                    "The minimum cacheable prompt must be at least one token, was " + tokens);
        }
        return tokens;
    }

    static long countTokensRequestsPerMinute(long rpm) {
        if (rpm < 0) {
            throw new IllegalArgumentException(
                    "The count_tokens limit must be zero (unlimited) or positive, was " + rpm);
        }
        return rpm;
    }

    static long downloadBytes(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("A download cannot have a negative size, was " + bytes);
        }
        return bytes;
    }

    /**
     * The mutable, validated settings behind {@link LlmSimulator.Builder}, with its
     * defaults.
     */
    static final class Draft {

        private int port;

        private final Map<String, ModelLimits> limits = new LinkedHashMap<>();

        private ModelLimits defaultLimits = ModelLimits.unlimited();

        private Duration baseLatency = Duration.ofMillis(20);

        private Duration perTokenLatency = Duration.ofNanos(200_000);

        private OutputTokens outputTokens = OutputTokens.fixed(100);

        private final Map<String, RandomFaults> randomFaults = new LinkedHashMap<>();

        private final Map<String, SimulatorFaults.ConcurrencyLimit> concurrencyLimits = new LinkedHashMap<>();

        private long seed = 42;

        private Clock clock = SYSTEM_CLOCK;

        private Set<String> apiKeys = Set.of();

        private boolean requireApiKey;

        private int tokensPerEvent = 4;

        private boolean roundRemaining = true;

        private int threads = 200;

        private Duration bucketWindow = Duration.ofMinutes(1);

        private int minimumCacheableTokens = PromptCache.DEFAULT_MINIMUM_TOKENS;

        private long countTokensRequestsPerMinute;

        private long downloadBytes = 1024 * 1024;

        void model(String model, ModelLimits limits) {
            this.limits.put(Objects.requireNonNull(model, "model"), Objects.requireNonNull(limits, "limits"));
        }

        void defaultLimits(ModelLimits limits) {
            this.defaultLimits = Objects.requireNonNull(limits, "limits");
        }

        void port(int port) {
            this.port = port;
        }

        void latency(Duration base, Duration perOutputToken) {
            this.baseLatency = nonNegative(base);
            this.perTokenLatency = nonNegative(perOutputToken);
        }

        void outputTokens(OutputTokens outputTokens) {
            this.outputTokens = Objects.requireNonNull(outputTokens, "outputTokens");
        }

        void randomFaults(String model, RandomFaults faults) {
            this.randomFaults.put(model, Objects.requireNonNull(faults, "faults"));
        }

        void seed(long seed) {
            this.seed = seed;
        }

        void clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
        }

        void apiKeys(String... keys) {
            this.apiKeys = Set.copyOf(Arrays.asList(keys));
        }

        void requireApiKey(boolean required) {
            this.requireApiKey = required;
        }

        void concurrencyLimit(String model, int maxInFlight, int rejectStatus) {
            this.concurrencyLimits.put(model, new SimulatorFaults.ConcurrencyLimit(maxInFlight, rejectStatus));
        }

        void tokensPerStreamEvent(int tokens) {
            if (tokens < 1) {
                throw new IllegalArgumentException("At least one token per event");
            }
            this.tokensPerEvent = tokens;
        }

        void roundRemainingTokens(boolean round) {
            this.roundRemaining = round;
        }

        void threads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("At least one thread");
            }
            this.threads = threads;
        }

        void bucketWindow(Duration window) {
            Objects.requireNonNull(window, "window");
            if (window.toMillis() < 1 || window.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException(
                        "The bucket window must be between 1 ms and one minute, was " + window);
            }
            this.bucketWindow = window;
        }

        void minimumCacheableTokens(int tokens) {
            this.minimumCacheableTokens = SimulatorConfig.minimumCacheableTokens(tokens);
        }

        void countTokensRequestsPerMinute(long rpm) {
            this.countTokensRequestsPerMinute = SimulatorConfig.countTokensRequestsPerMinute(rpm);
        }

        void downloadBytes(long bytes) {
            this.downloadBytes = SimulatorConfig.downloadBytes(bytes);
        }

        SimulatorConfig freeze() {
            return new SimulatorConfig(this.port, Collections.unmodifiableMap(new LinkedHashMap<>(this.limits)),
                    this.defaultLimits, this.baseLatency, this.perTokenLatency, this.outputTokens,
                    Collections.unmodifiableMap(new LinkedHashMap<>(this.randomFaults)),
                    Collections.unmodifiableMap(new LinkedHashMap<>(this.concurrencyLimits)), this.seed, this.clock,
                    this.apiKeys, this.requireApiKey, this.tokensPerEvent, this.roundRemaining, this.threads,
                    this.bucketWindow, this.minimumCacheableTokens, this.countTokensRequestsPerMinute,
                    this.downloadBytes);
        }

    }

}
