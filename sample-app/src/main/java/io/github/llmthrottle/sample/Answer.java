package io.github.llmthrottle.sample;

/**
 * What the assistant answered, and where the answer came from.
 *
 * @param text the answer
 * @param model the model that produced it, or {@code cache} for a degraded answer
 * @param inputTokens input tokens the provider counted
 * @param outputTokens output tokens the provider counted
 */
public record Answer(String text, String model, long inputTokens, long outputTokens) {

    /** Whether the answer came from the fallback method rather than a model. */
    public boolean degraded() {
        return "cache".equals(this.model);
    }

}
