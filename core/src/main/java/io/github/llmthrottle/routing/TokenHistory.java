package io.github.llmthrottle.routing;

/**
 * What the successful calls of a model used so far: the base of the typical request a
 * router estimates with before the method has built its own.
 *
 * @param calls the successful calls
 * @param inputTokens their input tokens
 * @param outputTokens their output tokens
 */
public record TokenHistory(long calls, long inputTokens, long outputTokens) {

    /** No call yet. */
    public static final TokenHistory NONE = new TokenHistory(0, 0, 0);

    /**
     * This history and another one together.
     * @param other the other history
     * @return the sum
     */
    public TokenHistory plus(TokenHistory other) {
        return new TokenHistory(this.calls + other.calls, this.inputTokens + other.inputTokens,
                this.outputTokens + other.outputTokens);
    }

}
