package io.github.llmthrottle.test;

/**
 * The tokens currently available in the buckets of one API key and model, read from the
 * simulator without changing them. A dimension without a limit reports
 * {@link Long#MAX_VALUE}. Values can be negative after an OpenAI request without
 * {@code max_tokens} was charged its actual output.
 *
 * @param requests requests available (RPM bucket)
 * @param inputTokens input tokens available (ITPM bucket)
 * @param outputTokens output tokens available (OTPM bucket)
 * @param tokens combined tokens available (OpenAI TPM bucket)
 */
public record BucketLevels(long requests, long inputTokens, long outputTokens, long tokens) {

}
