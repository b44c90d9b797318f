package io.github.llmthrottle.provider;

/**
 * The wire dialect a client speaks: which auth header, which rate-limit headers, which error
 * envelope and which usage fields.
 */
public enum ProviderDialect {

    /** Anthropic Messages API: {@code x-api-key}, {@code anthropic-ratelimit-*} headers. */
    ANTHROPIC,

    /** OpenAI-compatible Chat Completions: {@code Authorization: Bearer}, {@code x-ratelimit-*}. */
    OPENAI,

    /** Any other HTTP API: only the standard headers (Retry-After, RateLimit) are read. */
    GENERIC

}
