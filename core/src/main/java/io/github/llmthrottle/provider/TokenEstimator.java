package io.github.llmthrottle.provider;

/**
 * Estimates the input tokens of a request before it is sent, so that input-token buckets
 * can be debited at admission. After the response, {@link #observe(LlmRequest, long)}
 * tells the estimator what the provider actually counted, so that it can correct itself.
 * Register a bean of this type to replace the default {@link CharacterTokenEstimator}.
 */
public interface TokenEstimator {

    /**
     * Estimates the input tokens of {@code request}.
     * @param model the model the request is for
     * @param request the request
     * @return the estimate, at least 1 for a non-empty request
     */
    long estimateInputTokens(String model, LlmRequest request);

    /**
     * Reports what the provider counted for a request that was estimated earlier.
     * @param model the model
     * @param request the request
     * @param actualInputTokens every input token of the prompt the response's usage
     * reports, cache reads and writes included ({@link Usage#promptTokens()})
     */
    default void observe(String model, LlmRequest request, long actualInputTokens) {
    }

}
