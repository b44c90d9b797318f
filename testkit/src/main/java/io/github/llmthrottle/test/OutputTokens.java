package io.github.llmthrottle.test;

/**
 * Decides, deterministically, how many output tokens the simulator generates for a
 * request. The simulator clamps the answer to {@code [1, max_tokens]}; when the answer
 * reaches {@code max_tokens} the response stops with {@code max_tokens} (Anthropic) or
 * {@code length} (OpenAI), otherwise with {@code end_turn} / {@code stop}.
 */
@FunctionalInterface
public interface OutputTokens {

    /**
     * Returns the number of output tokens wanted for a request.
     * @param model the requested model
     * @param inputTokens the simulator's input estimate for the request
     * @param maxTokens the request's {@code max_tokens} (for OpenAI requests without one,
     * 4096)
     * @return the tokens to generate before clamping
     */
    int outputTokens(String model, int inputTokens, int maxTokens);

    /**
     * Always the same number of tokens (clamped to {@code max_tokens}); the default is
     * 100.
     * @param tokens the typical output
     * @return the policy
     */
    static OutputTokens fixed(int tokens) {
        return (model, input, max) -> tokens;
    }

    /**
     * A fraction of {@code max_tokens}, rounded up.
     * @param fraction between 0 and 1
     * @return the policy
     */
    static OutputTokens fractionOfMaxTokens(double fraction) {
        return (model, input, max) -> (int) Math.ceil(max * fraction);
    }

    /**
     * Proportional to the input estimate, rounded up.
     * @param ratio output tokens per input token
     * @return the policy
     */
    static OutputTokens proportionalToInput(double ratio) {
        return (model, input, max) -> (int) Math.ceil(input * ratio);
    }

}
