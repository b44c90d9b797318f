package io.github.llmthrottle.limit;

import org.jspecify.annotations.Nullable;

/**
 * The configured limits of one model ({@code llm.throttle.clients.NAME.models.MODEL}). A
 * {@code null} value means "no local limit" for that dimension. Each per-minute limit
 * becomes a bucket holding one minute's worth and refilling continuously;
 * {@code maxConcurrency} is the ceiling of the adaptive concurrency limit.
 *
 * @param requestsPerMinute requests per minute, or {@code null}
 * @param inputTokensPerMinute input tokens per minute, or {@code null}
 * @param outputTokensPerMinute output tokens per minute, or {@code null}
 * @param maxConcurrency ceiling for calls in flight at once, or {@code null}
 * @param utilization the share of every per-minute limit admitted, configured and
 * provider-reported alike: more than 0 and at most 1 ({@code llm.throttle.utilization},
 * for a safety margin)
 */
public record ModelLimits(@Nullable Long requestsPerMinute, @Nullable Long inputTokensPerMinute,
        @Nullable Long outputTokensPerMinute, @Nullable Integer maxConcurrency, double utilization) {

    /** No limit in any dimension. */
    public static final ModelLimits UNLIMITED = new ModelLimits(null, null, null, null);

    /**
     * The largest limit of any kind (per minute, per day or month, concurrency): a
     * trillion, far above any provider's, and small enough that ten minutes' worth of it,
     * and sums of such, stay exact in a Redis reply (a double, exact to 2^53) and never
     * overflow the bucket arithmetic.
     */
    public static final long MAX_LIMIT = 1_000_000_000_000L;

    /**
     * The largest per-minute limit: ten billion, far above any provider's, and below the
     * refill rate a token bucket can keep (one token a nanosecond, six times as much).
     */
    public static final long MAX_PER_MINUTE = 10_000_000_000L;

    public ModelLimits {
        requirePerMinute("requestsPerMinute", requestsPerMinute);
        requirePerMinute("inputTokensPerMinute", inputTokensPerMinute);
        requirePerMinute("outputTokensPerMinute", outputTokensPerMinute);
        requirePositive("maxConcurrency", (maxConcurrency != null) ? maxConcurrency.longValue() : null);
        if (!(utilization > 0 && utilization <= 1)) {
            throw new IllegalArgumentException("utilization must be more than 0 and at most 1, was " + utilization);
        }
    }

    /**
     * Limits that admit the whole of each limit.
     * @param requestsPerMinute requests per minute, or {@code null}
     * @param inputTokensPerMinute input tokens per minute, or {@code null}
     * @param outputTokensPerMinute output tokens per minute, or {@code null}
     * @param maxConcurrency ceiling for calls in flight at once, or {@code null}
     */
    public ModelLimits(@Nullable Long requestsPerMinute, @Nullable Long inputTokensPerMinute,
            @Nullable Long outputTokensPerMinute, @Nullable Integer maxConcurrency) {
        this(requestsPerMinute, inputTokensPerMinute, outputTokensPerMinute, maxConcurrency, 1.0);
    }

    /**
     * These limits admitting only a share of each.
     * @param utilization more than 0 and at most 1
     * @return the limits
     */
    public ModelLimits withUtilization(double utilization) {
        return new ModelLimits(this.requestsPerMinute, this.inputTokensPerMinute, this.outputTokensPerMinute,
                this.maxConcurrency, utilization);
    }

    /**
     * The share of a per-minute limit these limits admit: {@code limit} times the
     * utilization, rounded down, at least 1.
     * @param limit a configured or provider-reported limit
     * @return the admitted share
     */
    public long admitted(long limit) {
        return (this.utilization >= 1) ? limit : Math.max(1, (long) Math.floor(limit * this.utilization));
    }

    /**
     * The configured per-minute limit of one dimension.
     * @param dimension the dimension
     * @return the limit, or {@code null} when unlimited ({@link Dimension#TOKENS} is
     * never configured, only learned from the provider's headers)
     */
    public @Nullable Long perMinute(Dimension dimension) {
        return switch (dimension) {
            case REQUESTS -> this.requestsPerMinute;
            case INPUT_TOKENS -> this.inputTokensPerMinute;
            case OUTPUT_TOKENS -> this.outputTokensPerMinute;
            case TOKENS -> null;
        };
    }

    public static void requirePositive(String name, @Nullable Long value) {
        requireBetweenOneAnd(MAX_LIMIT, name, value);
    }

    static void requirePerMinute(String name, @Nullable Long value) {
        requireBetweenOneAnd(MAX_PER_MINUTE, name, value);
    }

    private static void requireBetweenOneAnd(long max, String name, @Nullable Long value) {
        if (value != null && value <= 0) {
            throw new IllegalArgumentException(name + " must be positive (or unset for no limit), was " + value);
        }
        if (value != null && value > max) {
            throw new IllegalArgumentException(name + " must be at most " + max + ", was " + value);
        }
    }

}
