package io.github.llmthrottle.test;

/**
 * One parsed, valid request.
 *
 * @param dialect the API it came through
 * @param model the requested model
 * @param apiKey the API key ({@code ""} when none was sent)
 * @param inputTokens the input estimate
 * @param maxTokens the requested {@code max_tokens} (0 when an OpenAI request has none)
 * @param stream whether the response streams
 * @param includeUsage whether an OpenAI stream ends with a usage chunk
 */
record SimRequest(Dialect dialect, String model, String apiKey, int inputTokens, int maxTokens, boolean stream,
        boolean includeUsage) {

    /** The output ceiling for OpenAI requests without {@code max_tokens}. */
    static final int DEFAULT_OPENAI_MAX_TOKENS = 4096;

    int outputCeiling() {
        return (this.maxTokens > 0) ? this.maxTokens : DEFAULT_OPENAI_MAX_TOKENS;
    }

}
