package io.github.llmthrottle;

/**
 * Provider refusals that, listed in {@link Throttled#fallbackOn()}, route an invocation
 * to the next candidate model instead of failing it: by default they reach the caller,
 * since the same request would fail again on the same model.
 */
public enum FallbackOn {

    /**
     * The request is too long for the model's context: OpenAI's
     * {@code context_length_exceeded} code, Anthropic's "prompt is too long".
     */
    CONTEXT_LENGTH,

    /**
     * The provider refused the request for its content policy: OpenAI's
     * {@code content_policy_violation}, Azure OpenAI's {@code content_filter}.
     */
    CONTENT_POLICY,

    /**
     * The organisation's quota, credit or spend limit is exhausted: OpenAI's
     * {@code insufficient_quota} and spend-limit 429s, Anthropic's 402
     * {@code billing_error}, "credit balance is too low" and spend-limit errors.
     */
    QUOTA

}
