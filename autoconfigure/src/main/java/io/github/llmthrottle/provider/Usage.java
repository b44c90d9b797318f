package io.github.llmthrottle.provider;

/**
 * Tokens a provider counted for one call, as they count against its rate limits: input
 * tokens include cache writes (Anthropic {@code cache_creation_input_tokens}) but not
 * cache reads.
 *
 * @param inputTokens input tokens that count toward the input-token limit
 * @param outputTokens output tokens generated
 */
public record Usage(long inputTokens, long outputTokens) {

}
