package io.github.llmthrottle.provider;

/**
 * Tokens a provider counted for one call. {@link #inputTokens()} is what counts against
 * its input-token rate limit: Anthropic's {@code input_tokens} plus
 * {@code cache_creation_input_tokens} (cache reads do not count on current Claude
 * models), OpenAI's {@code prompt_tokens} (cached tokens included: OpenAI counts them).
 * {@link #promptTokens()} is the whole prompt the provider read, cache reads included:
 * the measure of the prompt's text, from which the characters-per-token ratio is learned.
 *
 * @param inputTokens input tokens that count toward the input-token limit
 * @param outputTokens output tokens generated
 * @param cacheReadTokens input tokens read from the prompt cache (Anthropic
 * {@code cache_read_input_tokens}, OpenAI {@code cached_tokens})
 * @param cacheWriteTokens input tokens written to the prompt cache (Anthropic
 * {@code cache_creation_input_tokens}; already part of {@code inputTokens})
 * @param promptTokens every input token of the prompt, read from the cache or not
 */
public record Usage(long inputTokens, long outputTokens, long cacheReadTokens, long cacheWriteTokens,
        long promptTokens) {

    /**
     * Usage without prompt caching: the whole prompt counts as input.
     * @param inputTokens input tokens
     * @param outputTokens output tokens
     */
    public Usage(long inputTokens, long outputTokens) {
        this(inputTokens, outputTokens, 0, 0, inputTokens);
    }

    /**
     * Anthropic's usage: uncached input, cache writes and cache reads are reported apart;
     * the first two count against input tokens per minute.
     * @param uncachedInputTokens {@code input_tokens}
     * @param cacheWriteTokens {@code cache_creation_input_tokens}
     * @param cacheReadTokens {@code cache_read_input_tokens}
     * @param outputTokens {@code output_tokens}
     * @return the usage
     */
    public static Usage ofCachedPrompt(long uncachedInputTokens, long cacheWriteTokens, long cacheReadTokens,
            long outputTokens) {
        return new Usage(uncachedInputTokens + cacheWriteTokens, outputTokens, cacheReadTokens, cacheWriteTokens,
                uncachedInputTokens + cacheWriteTokens + cacheReadTokens);
    }

}
