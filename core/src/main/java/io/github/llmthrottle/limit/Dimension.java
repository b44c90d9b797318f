package io.github.llmthrottle.limit;

/**
 * A dimension a provider limits per minute, each held in a bucket of its own.
 */
public enum Dimension {

    /** Requests per minute; every attempt costs one. */
    REQUESTS("requests"),

    /** Input tokens per minute; an attempt costs its estimated input tokens. */
    INPUT_TOKENS("input tokens"),

    /** Output tokens per minute; an attempt reserves its {@code max_tokens}. */
    OUTPUT_TOKENS("output tokens"),

    /**
     * Input and output tokens together (OpenAI's TPM). Never configured: only learned
     * from the provider's {@code tokens} headers when the provider reports no separate
     * input and output limits. An attempt costs its input plus its reserved output
     * tokens.
     */
    TOKENS("tokens");

    private final String description;

    Dimension(String description) {
        this.description = description;
    }

    /**
     * What an attempt costs in this dimension.
     * @param inputTokens input tokens
     * @param outputTokens output tokens
     * @return the cost
     */
    long cost(long inputTokens, long outputTokens) {
        return switch (this) {
            case REQUESTS -> 1;
            case INPUT_TOKENS -> inputTokens;
            case OUTPUT_TOKENS -> outputTokens;
            case TOKENS -> saturatedAdd(inputTokens, outputTokens);
        };
    }

    public static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return (((a ^ sum) & (b ^ sum)) < 0) ? Long.MAX_VALUE : sum;
    }

    @Override
    public String toString() {
        return this.description;
    }

}
