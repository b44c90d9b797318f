package io.github.llmthrottle.provider;

import org.jspecify.annotations.Nullable;

/**
 * What the throttle needs to know of one request body: the model, how many output tokens
 * it reserves, whether it streams, and how much text it sends.
 *
 * @param model the {@code model} field, or {@code null} when absent
 * @param maxOutputTokens {@code max_tokens} / {@code max_completion_tokens}, or
 * {@code null}
 * @param stream whether {@code stream} is true
 * @param includeUsage whether an OpenAI stream asked for a final usage chunk
 * @param textCharacters characters of prompt text (messages, system, tools, prompt)
 * @param bodyBytes size of the body in bytes
 */
public record LlmRequest(@Nullable String model, @Nullable Long maxOutputTokens, boolean stream, boolean includeUsage,
        long textCharacters, int bodyBytes) {

    /** A request whose body is not an LLM request (empty, not JSON). */
    public static LlmRequest unknown(int bodyBytes) {
        return new LlmRequest(null, null, false, false, 0, bodyBytes);
    }

}
