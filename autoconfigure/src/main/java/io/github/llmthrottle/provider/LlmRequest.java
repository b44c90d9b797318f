package io.github.llmthrottle.provider;

import org.jspecify.annotations.Nullable;

/**
 * What the throttle needs to know of one request body: the model, how many output tokens
 * it reserves, whether it streams, how much text it sends, and what its images and
 * documents cost.
 *
 * @param model the {@code model} field, or {@code null} when absent
 * @param maxOutputTokens {@code max_tokens} / {@code max_completion_tokens}, or
 * {@code null}
 * @param stream whether {@code stream} is true
 * @param includeUsage whether an OpenAI stream asked for a final usage chunk
 * @param textCharacters characters of prompt text (messages, system, tools, prompt),
 * images and documents excluded
 * @param mediaTokens estimated input tokens of the images and documents (never counted as
 * text)
 * @param bodyBytes size of the body in bytes
 */
public record LlmRequest(@Nullable String model, @Nullable Long maxOutputTokens, boolean stream, boolean includeUsage,
        long textCharacters, long mediaTokens, int bodyBytes) {

    /**
     * A request with text only.
     * @param model the {@code model} field, or {@code null} when absent
     * @param maxOutputTokens the output tokens it reserves, or {@code null}
     * @param stream whether it streams
     * @param includeUsage whether an OpenAI stream asked for a final usage chunk
     * @param textCharacters characters of prompt text
     * @param bodyBytes size of the body in bytes
     */
    public LlmRequest(@Nullable String model, @Nullable Long maxOutputTokens, boolean stream, boolean includeUsage,
            long textCharacters, int bodyBytes) {
        this(model, maxOutputTokens, stream, includeUsage, textCharacters, 0, bodyBytes);
    }

    /** A request whose body is not an LLM request (empty, not JSON). */
    public static LlmRequest unknown(int bodyBytes) {
        return new LlmRequest(null, null, false, false, 0, 0, bodyBytes);
    }

}
