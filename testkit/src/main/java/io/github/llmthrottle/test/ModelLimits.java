package io.github.llmthrottle.test;

/**
 * The per-minute limits the simulator enforces for one model and one API key. Each limit
 * is a token bucket holding one minute's worth ({@code capacity = limit}) that refills
 * continuously at {@code limit / 60} per second, as Anthropic documents; with
 * {@link LlmSimulator.Builder#bucketWindow(java.time.Duration)} the buckets hold a
 * shorter window's worth instead, refilling at the same rate. A value of {@code 0} means
 * "no limit" for that dimension: no bucket, and no rate-limit headers for it.
 * <p>
 * The Anthropic dialect enforces {@link #requestsPerMinute()},
 * {@link #inputTokensPerMinute()} (debited by the input estimate) and
 * {@link #outputTokensPerMinute()} (debited by {@code max_tokens} at admission, refunded
 * to the actual output at the end). The OpenAI dialect enforces
 * {@link #requestsPerMinute()} and the combined {@link #tokensPerMinute()} (debited by
 * {@code prompt estimate + max_tokens}, refunded to {@code prompt + actual output}).
 *
 * @param requestsPerMinute requests per minute (RPM), 0 for unlimited
 * @param inputTokensPerMinute input tokens per minute (Anthropic ITPM), 0 for unlimited
 * @param outputTokensPerMinute output tokens per minute (Anthropic OTPM), 0 for unlimited
 * @param tokensPerMinute combined tokens per minute (OpenAI TPM), 0 for unlimited
 */
public record ModelLimits(long requestsPerMinute, long inputTokensPerMinute, long outputTokensPerMinute,
        long tokensPerMinute) {

    private static final ModelLimits UNLIMITED = new ModelLimits(0, 0, 0, 0);

    /**
     * Validates the limits.
     * @param requestsPerMinute requests per minute, 0 for unlimited
     * @param inputTokensPerMinute input tokens per minute, 0 for unlimited
     * @param outputTokensPerMinute output tokens per minute, 0 for unlimited
     * @param tokensPerMinute combined tokens per minute, 0 for unlimited
     */
    public ModelLimits {
        if (requestsPerMinute < 0 || inputTokensPerMinute < 0 || outputTokensPerMinute < 0 || tokensPerMinute < 0) {
            throw new IllegalArgumentException("Limits must be zero (unlimited) or positive");
        }
    }

    /**
     * Anthropic-style limits. The OpenAI combined TPM is set to {@code itpm + otpm} so
     * that the same model can also be called through the OpenAI dialect.
     * @param rpm requests per minute, 0 for unlimited
     * @param itpm input tokens per minute, 0 for unlimited
     * @param otpm output tokens per minute, 0 for unlimited
     * @return the limits
     */
    public static ModelLimits of(long rpm, long itpm, long otpm) {
        return new ModelLimits(rpm, itpm, otpm, (itpm > 0 && otpm > 0) ? itpm + otpm : 0);
    }

    /**
     * OpenAI-style limits: requests per minute and one combined tokens-per-minute bucket.
     * The Anthropic dialect sees only the request limit.
     * @param rpm requests per minute, 0 for unlimited
     * @param tpm tokens per minute (prompt plus completion), 0 for unlimited
     * @return the limits
     */
    public static ModelLimits openAi(long rpm, long tpm) {
        return new ModelLimits(rpm, 0, 0, tpm);
    }

    /**
     * No limit in any dimension (the default for models that are not configured).
     * @return limits that never reject
     */
    public static ModelLimits unlimited() {
        return UNLIMITED;
    }

    /**
     * Returns a copy with another request limit.
     * @param rpm requests per minute, 0 for unlimited
     * @return the new limits
     */
    public ModelLimits withRequestsPerMinute(long rpm) {
        return new ModelLimits(rpm, this.inputTokensPerMinute, this.outputTokensPerMinute, this.tokensPerMinute);
    }

    /**
     * Returns a copy with another input-token limit.
     * @param itpm input tokens per minute, 0 for unlimited
     * @return the new limits
     */
    public ModelLimits withInputTokensPerMinute(long itpm) {
        return new ModelLimits(this.requestsPerMinute, itpm, this.outputTokensPerMinute, this.tokensPerMinute);
    }

    /**
     * Returns a copy with another output-token limit.
     * @param otpm output tokens per minute, 0 for unlimited
     * @return the new limits
     */
    public ModelLimits withOutputTokensPerMinute(long otpm) {
        return new ModelLimits(this.requestsPerMinute, this.inputTokensPerMinute, otpm, this.tokensPerMinute);
    }

    /**
     * Returns a copy with another combined (OpenAI) token limit.
     * @param tpm tokens per minute, 0 for unlimited
     * @return the new limits
     */
    public ModelLimits withTokensPerMinute(long tpm) {
        return new ModelLimits(this.requestsPerMinute, this.inputTokensPerMinute, this.outputTokensPerMinute, tpm);
    }

}
