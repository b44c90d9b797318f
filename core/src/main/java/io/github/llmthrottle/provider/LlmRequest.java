package io.github.llmthrottle.provider;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What the throttle needs to know of one request body: the model, how many output tokens
 * it reserves, whether it streams, how much text it sends, and what its images and
 * documents cost.
 *
 * @param model the {@code model} field, or {@code null} when absent
 * @param maxOutputTokens {@code max_tokens} / {@code max_completion_tokens} (Ollama's
 * {@code options.num_predict}), or {@code null}
 * @param stream whether the answer streams: {@code stream} is true, or absent where the
 * endpoint streams by default
 * @param includeUsage whether an OpenAI stream asked for a final usage chunk
 * @param textCharacters characters of prompt text (messages, system, tools, prompt),
 * images and documents excluded
 * @param mediaTokens estimated input tokens of the images and documents (never counted as
 * text)
 * @param bodyBytes size of the body in bytes
 * @param cachePrefixes the prefixes of the prompt that the provider's prompt cache may
 * hold, shortest first: the blocks ending at a {@code cache_control} breakpoint and those
 * the provider looks back to before one; empty when the request marks none
 * @param promptComplete whether the body carries the whole prompt ({@code false} when the
 * provider adds earlier turns it keeps: the Responses API's {@code previous_response_id}
 * or {@code conversation})
 */
public record LlmRequest(@Nullable String model, @Nullable Long maxOutputTokens, boolean stream, boolean includeUsage,
        long textCharacters, long mediaTokens, int bodyBytes, List<PromptPrefix> cachePrefixes,
        boolean promptComplete) {

    public LlmRequest {
        cachePrefixes = List.copyOf(cachePrefixes);
    }

    /**
     * A request whose body carries its whole prompt.
     * @param model the {@code model} field, or {@code null} when absent
     * @param maxOutputTokens the output tokens it reserves, or {@code null}
     * @param stream whether it streams
     * @param includeUsage whether an OpenAI stream asked for a final usage chunk
     * @param textCharacters characters of prompt text
     * @param mediaTokens estimated input tokens of the images and documents
     * @param bodyBytes size of the body in bytes
     * @param cachePrefixes the prefixes the provider's prompt cache may hold
     */
    public LlmRequest(@Nullable String model, @Nullable Long maxOutputTokens, boolean stream, boolean includeUsage,
            long textCharacters, long mediaTokens, int bodyBytes, List<PromptPrefix> cachePrefixes) {
        this(model, maxOutputTokens, stream, includeUsage, textCharacters, mediaTokens, bodyBytes, cachePrefixes, true);
    }

    /**
     * A request without prompt caching.
     * @param model the {@code model} field, or {@code null} when absent
     * @param maxOutputTokens the output tokens it reserves, or {@code null}
     * @param stream whether it streams
     * @param includeUsage whether an OpenAI stream asked for a final usage chunk
     * @param textCharacters characters of prompt text
     * @param mediaTokens estimated input tokens of the images and documents
     * @param bodyBytes size of the body in bytes
     */
    public LlmRequest(@Nullable String model, @Nullable Long maxOutputTokens, boolean stream, boolean includeUsage,
            long textCharacters, long mediaTokens, int bodyBytes) {
        this(model, maxOutputTokens, stream, includeUsage, textCharacters, mediaTokens, bodyBytes, List.of());
    }

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

    /**
     * Whether the estimate of this request is its text alone: no image or document is
     * estimated apart and the body carries the whole prompt, so what the provider counts
     * teaches the characters-per-token ratio.
     * @return {@code true} when the prompt is text only
     */
    public boolean isTextOnly() {
        return this.mediaTokens == 0 && this.promptComplete;
    }

    /**
     * The part of this request after {@code prefix}: what the provider counts as input
     * when it reads {@code prefix} from its cache.
     * @param prefix one of {@link #cachePrefixes()}
     * @return the request without the prefix's text and media (and without prefixes)
     */
    public LlmRequest after(PromptPrefix prefix) {
        return new LlmRequest(this.model, this.maxOutputTokens, this.stream, this.includeUsage,
                Math.max(0, this.textCharacters - prefix.textCharacters()),
                Math.max(0, this.mediaTokens - prefix.mediaTokens()), this.bodyBytes, List.of(), this.promptComplete);
    }

}
