package io.github.llmthrottle.limit;

/**
 * The settings every {@link ModelLimiter} shares beyond its own limits: where its
 * adaptive concurrency limit starts and how far it grows, its slow start, and how many
 * names that are not configured it tracks at once.
 *
 * @param concurrency the adaptive concurrency limit's start and default ceiling
 * @param slowStart the slow start
 * @param maxTrackedNames most names that are not configured tracked at once: tenants per
 * model (their buckets and quota counters) and models named only in requests per client;
 * the least recently used idle one is forgotten beyond
 * @param tenantWeights the weights by which waiting tenants share a model
 */
public record LimiterOptions(ConcurrencyLimits concurrency, SlowStartSettings slowStart, int maxTrackedNames,
        TenantWeights tenantWeights) {

    /** The default of {@link #maxTrackedNames()}. */
    public static final int DEFAULT_MAX_TRACKED_NAMES = 100;

    /**
     * The defaults of the auto-configuration: {@link ConcurrencyLimits#DEFAULTS}, slow
     * start on, {@value #DEFAULT_MAX_TRACKED_NAMES} tracked names.
     */
    public static final LimiterOptions DEFAULTS = new LimiterOptions(ConcurrencyLimits.DEFAULTS,
            SlowStartSettings.DEFAULTS);

    /**
     * Admission as the buckets allow from the first call (no slow start), with the
     * default concurrency limit: what a limiter built without options gets.
     */
    public static final LimiterOptions WITHOUT_SLOW_START = new LimiterOptions(ConcurrencyLimits.DEFAULTS,
            SlowStartSettings.OFF);

    public LimiterOptions {
        if (maxTrackedNames < 1) {
            throw new IllegalArgumentException("maxTrackedNames must be at least 1, was " + maxTrackedNames);
        }
    }

    /**
     * Options that track {@value #DEFAULT_MAX_TRACKED_NAMES} names that are not
     * configured.
     * @param concurrency the adaptive concurrency limit's start and default ceiling
     * @param slowStart the slow start
     */
    public LimiterOptions(ConcurrencyLimits concurrency, SlowStartSettings slowStart) {
        this(concurrency, slowStart, DEFAULT_MAX_TRACKED_NAMES);
    }

    /**
     * Options without tenant weights.
     * @param concurrency the adaptive concurrency limit's start and default ceiling
     * @param slowStart the slow start
     * @param maxTrackedNames most names tracked at once, at least 1
     */
    public LimiterOptions(ConcurrencyLimits concurrency, SlowStartSettings slowStart, int maxTrackedNames) {
        this(concurrency, slowStart, maxTrackedNames, TenantWeights.NONE);
    }

    /**
     * A copy with other tenant weights.
     * @param tenantWeights the weights of the tenants
     * @return the new options
     */
    public LimiterOptions withTenantWeights(TenantWeights tenantWeights) {
        return new LimiterOptions(this.concurrency, this.slowStart, this.maxTrackedNames, tenantWeights);
    }

    /**
     * A copy with other concurrency limits.
     * @param concurrency the concurrency limits
     * @return the new options
     */
    public LimiterOptions withConcurrency(ConcurrencyLimits concurrency) {
        return new LimiterOptions(concurrency, this.slowStart, this.maxTrackedNames, this.tenantWeights);
    }

    /**
     * A copy with other slow start settings.
     * @param slowStart the slow start settings
     * @return the new options
     */
    public LimiterOptions withSlowStart(SlowStartSettings slowStart) {
        return new LimiterOptions(this.concurrency, slowStart, this.maxTrackedNames, this.tenantWeights);
    }

    /**
     * A copy that tracks another number of names that are not configured.
     * @param maxTrackedNames most names tracked at once, at least 1
     * @return the new options
     */
    public LimiterOptions withMaxTrackedNames(int maxTrackedNames) {
        return new LimiterOptions(this.concurrency, this.slowStart, maxTrackedNames, this.tenantWeights);
    }

}
