package io.github.llmthrottle.limit;

/**
 * The settings every {@link ModelLimiter} shares beyond its own limits: where its
 * adaptive concurrency limit starts and how far it grows, and its slow start.
 *
 * @param concurrency the adaptive concurrency limit's start and default ceiling
 * @param slowStart the slow start
 */
public record LimiterOptions(ConcurrencyLimits concurrency, SlowStartSettings slowStart) {

    /**
     * The defaults of the auto-configuration: {@link ConcurrencyLimits#DEFAULTS}, slow
     * start on.
     */
    public static final LimiterOptions DEFAULTS = new LimiterOptions(ConcurrencyLimits.DEFAULTS,
            SlowStartSettings.DEFAULTS);

    /**
     * Admission as the buckets allow from the first call (no slow start), with the
     * default concurrency limit: what a limiter built without options gets.
     */
    public static final LimiterOptions WITHOUT_SLOW_START = new LimiterOptions(ConcurrencyLimits.DEFAULTS,
            SlowStartSettings.OFF);

    /**
     * A copy with other concurrency limits.
     * @param concurrency the concurrency limits
     * @return the new options
     */
    public LimiterOptions withConcurrency(ConcurrencyLimits concurrency) {
        return new LimiterOptions(concurrency, this.slowStart);
    }

    /**
     * A copy with other slow start settings.
     * @param slowStart the slow start settings
     * @return the new options
     */
    public LimiterOptions withSlowStart(SlowStartSettings slowStart) {
        return new LimiterOptions(this.concurrency, slowStart);
    }

}
