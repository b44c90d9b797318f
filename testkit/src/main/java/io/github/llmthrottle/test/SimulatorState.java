package io.github.llmthrottle.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.bucket4j.TimeMeter;
import org.jspecify.annotations.Nullable;

/**
 * The runtime state of an {@link LlmSimulator} that its request handler reads: limits and
 * buckets, latency and output policy, faults, requests in flight and statistics.
 * Thread-safe.
 */
final class SimulatorState {

    private final SimulatorConfig initial;

    private final Clock clock;

    private final RateLimiter limiter;

    private final StatsRecorder stats = new StatsRecorder();

    private final SimulatorFaults faults;

    private final AtomicInteger inFlight = new AtomicInteger();

    private final ConcurrentHashMap<String, AtomicInteger> inFlightByModel = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<String, ModelLimits> limits = new ConcurrentHashMap<>();

    private volatile ModelLimits defaultLimits;

    private volatile Duration baseLatency;

    private volatile Duration perTokenLatency;

    private volatile OutputTokens outputTokens;

    private final PromptCache promptCache = new PromptCache();

    private final RateLimiter countTokensLimiter;

    private volatile int minimumCacheableTokens;

    private volatile long countTokensRequestsPerMinute;

    private volatile long downloadBytes;

    SimulatorState(SimulatorConfig config) {
        this.initial = config;
        this.clock = config.clock();
        TimeMeter meter = (config.clock() == SimulatorConfig.SYSTEM_CLOCK) ? TimeMeter.SYSTEM_NANOTIME
                : new ClockTimeMeter(config.clock());
        this.limiter = new RateLimiter(meter, this::limitsFor, config.bucketWindow());
        this.countTokensLimiter = new RateLimiter(meter,
                (model) -> ModelLimits.unlimited().withRequestsPerMinute(this.countTokensRequestsPerMinute),
                config.bucketWindow());
        this.faults = new SimulatorFaults(config.seed());
        restore();
    }

    /**
     * Restores the built limits, latency, output policy and faults; removes scripts,
     * outages and header overrides.
     */
    private void restore() {
        this.limits.clear();
        this.limits.putAll(this.initial.limits());
        this.defaultLimits = this.initial.defaultLimits();
        this.baseLatency = this.initial.baseLatency();
        this.perTokenLatency = this.initial.perTokenLatency();
        this.outputTokens = this.initial.outputTokens();
        this.minimumCacheableTokens = this.initial.minimumCacheableTokens();
        this.countTokensRequestsPerMinute = this.initial.countTokensRequestsPerMinute();
        this.downloadBytes = this.initial.downloadBytes();
        this.faults.reset(this.initial);
    }

    /**
     * Restores the built configuration, refills every bucket and zeroes the statistics.
     */
    void reset() {
        restore();
        this.limiter.clear();
        this.countTokensLimiter.clear();
        this.promptCache.clear();
        this.stats.reset();
    }

    SimulatorConfig initial() {
        return this.initial;
    }

    Clock clock() {
        return this.clock;
    }

    SimulatorFaults faults() {
        return this.faults;
    }

    void setLimits(String model, ModelLimits limits) {
        this.limits.put(model, limits);
    }

    void setDefaultLimits(ModelLimits limits) {
        this.defaultLimits = Objects.requireNonNull(limits, "limits");
    }

    ModelLimits limitsFor(String model) {
        ModelLimits own = this.limits.get(model);
        return (own != null) ? own : this.defaultLimits;
    }

    BucketLevels levels(String apiKey, String model) {
        Map<RateLimiter.Dimension, RateLimiter.Level> levels = this.limiter.levels(new RateLimiter.Key(apiKey, model));
        return new BucketLevels(available(levels, RateLimiter.Dimension.REQUESTS),
                available(levels, RateLimiter.Dimension.INPUT_TOKENS),
                available(levels, RateLimiter.Dimension.OUTPUT_TOKENS),
                available(levels, RateLimiter.Dimension.TOKENS));
    }

    private static long available(Map<RateLimiter.Dimension, RateLimiter.Level> levels, RateLimiter.Dimension d) {
        RateLimiter.Level level = levels.get(d);
        return (level != null) ? level.available() : Long.MAX_VALUE;
    }

    void setLatency(Duration base, Duration perOutputToken) {
        this.baseLatency = SimulatorConfig.nonNegative(base);
        this.perTokenLatency = SimulatorConfig.nonNegative(perOutputToken);
    }

    void setOutputTokens(OutputTokens outputTokens) {
        this.outputTokens = Objects.requireNonNull(outputTokens, "outputTokens");
    }

    void setMinimumCacheableTokens(int tokens) {
        this.minimumCacheableTokens = SimulatorConfig.minimumCacheableTokens(tokens);
    }

    void setCountTokensRequestsPerMinute(long rpm) {
        this.countTokensRequestsPerMinute = SimulatorConfig.countTokensRequestsPerMinute(rpm);
    }

    void setDownloadBytes(long bytes) {
        this.downloadBytes = SimulatorConfig.downloadBytes(bytes);
    }

    long downloadBytes() {
        return this.downloadBytes;
    }

    RateLimiter countTokensLimiter() {
        return this.countTokensLimiter;
    }

    PromptCache promptCache() {
        return this.promptCache;
    }

    /**
     * Finds what a request reads from and writes to the prompt cache now, without
     * changing the cache.
     */
    SimRequest lookUpCache(SimRequest request) {
        if (!request.cachePlan().hasBreakpoints()) {
            return request;
        }
        return request.withCache(
                this.promptCache.lookup(request.model(), request.cachePlan(), now(), this.minimumCacheableTokens));
    }

    /** Writes and renews the cached prefixes of an admitted request. */
    void commitCache(SimRequest request) {
        if (request.cachePlan().hasBreakpoints()) {
            this.promptCache.commit(request.model(), request.cachePlan(), request.cache(), now(),
                    this.minimumCacheableTokens);
        }
    }

    int inFlight() {
        return this.inFlight.get();
    }

    // ---- used by the handler

    Instant now() {
        return this.clock.instant();
    }

    RateLimiter limiter() {
        return this.limiter;
    }

    StatsRecorder recorder() {
        return this.stats;
    }

    Duration baseLatency() {
        return this.baseLatency;
    }

    Duration perTokenLatency() {
        return this.perTokenLatency;
    }

    OutputTokens outputTokens() {
        return this.outputTokens;
    }

    int tokensPerEvent() {
        return this.initial.tokensPerEvent();
    }

    boolean roundRemaining() {
        return this.initial.roundRemaining();
    }

    /**
     * @return {@code null} when the key is acceptable, else whether it was missing
     */
    @Nullable Boolean rejectKey(String apiKey) {
        boolean required = this.initial.requireApiKey() || !this.initial.apiKeys().isEmpty();
        if (required && apiKey.isEmpty()) {
            return Boolean.TRUE;
        }
        if (!this.initial.apiKeys().isEmpty() && !this.initial.apiKeys().contains(apiKey)) {
            return Boolean.FALSE;
        }
        return null;
    }

    @Nullable Fault pollScript(String model) {
        return this.faults.pollScript(model);
    }

    @Nullable Fault activeOutage(String model) {
        return this.faults.activeOutage(model, now());
    }

    SimulatorFaults.@Nullable ConcurrencyLimit exceededConcurrency(String model, int global, int forModel) {
        return this.faults.exceededConcurrency(model, global, forModel);
    }

    @Nullable Fault randomFault(String model) {
        return this.faults.randomFault(model);
    }

    void overrideHeaders(Map<String, String> headers) {
        this.faults.overrideHeaders(headers);
    }

    int enter(String model) {
        return this.inFlightByModel.computeIfAbsent(model, (m) -> new AtomicInteger()).incrementAndGet();
    }

    int enterGlobal() {
        return this.inFlight.incrementAndGet();
    }

    void exit(String model) {
        this.inFlight.decrementAndGet();
        AtomicInteger inFlight = this.inFlightByModel.get(model);
        if (inFlight == null) {
            throw new IllegalStateException("No call to '" + model + "' entered the simulator");
        }
        inFlight.decrementAndGet();
    }

    /** A bucket4j time meter that reads a {@link Clock}. */
    private static final class ClockTimeMeter implements TimeMeter {

        private final Clock clock;

        ClockTimeMeter(Clock clock) {
            this.clock = clock;
        }

        @Override
        public long currentTimeNanos() {
            Instant now = this.clock.instant();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        }

        @Override
        public boolean isWallClockBased() {
            return true;
        }

    }

}
