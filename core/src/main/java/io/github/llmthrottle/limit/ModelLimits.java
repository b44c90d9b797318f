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
 */
public record ModelLimits(@Nullable Long requestsPerMinute, @Nullable Long inputTokensPerMinute,
        @Nullable Long outputTokensPerMinute, @Nullable Integer maxConcurrency) {

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
