package io.github.llmthrottle.test;

/**
 * One parsed, valid request.
 *
 * @param dialect the API it came through
 * @param model the requested model
 * @param apiKey the API key ({@code ""} when none was sent)
 * @param inputTokens the input estimate of the whole prompt (cached or not)
 * @param maxTokens the requested {@code max_tokens} (0 when an OpenAI request has none)
 * @param stream whether the response streams
 * @param includeUsage whether an OpenAI stream ends with a usage chunk
 * @param cachePlan the prompt's blocks and {@code cache_control} breakpoints
 * ({@link PromptCache.Plan#NONE} when it has none)
 * @param cache what the request reads from and writes to the prompt cache, once known
 */
record SimRequest(Dialect dialect, String model, String apiKey, int inputTokens, int maxTokens, boolean stream,
        boolean includeUsage, PromptCache.Plan cachePlan, PromptCache.Usage cache) {

    /** The output ceiling for OpenAI requests without {@code max_tokens}. */
    static final int DEFAULT_OPENAI_MAX_TOKENS = 4096;

    /** A request that does not use the prompt cache. */
    SimRequest(Dialect dialect, String model, String apiKey, int inputTokens, int maxTokens, boolean stream,
            boolean includeUsage) {
        this(dialect, model, apiKey, inputTokens, maxTokens, stream, includeUsage, PromptCache.Plan.NONE,
                PromptCache.Usage.NONE);
    }

    int outputCeiling() {
        return (this.maxTokens > 0) ? this.maxTokens : DEFAULT_OPENAI_MAX_TOKENS;
    }

    /**
     * The input tokens not read from the cache: what the input-token limit counts
     * (uncached input and cache writes).
     */
    int countedInputTokens() {
        return this.inputTokens - this.cache.read();
    }

    /** The input after the last cache breakpoint, {@code input_tokens} in the usage. */
    int uncachedInputTokens() {
        return this.inputTokens - this.cache.read() - this.cache.written();
    }

    SimRequest withCache(PromptCache.Usage cache) {
        return new SimRequest(this.dialect, this.model, this.apiKey, this.inputTokens, this.maxTokens, this.stream,
                this.includeUsage, this.cachePlan, cache);
    }

}
