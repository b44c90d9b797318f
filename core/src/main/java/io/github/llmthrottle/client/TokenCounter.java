package io.github.llmthrottle.client;

import java.util.concurrent.CompletableFuture;

/**
 * Asks the provider how many input tokens a request will count, before it is sent. The
 * answer comes as a future so that the caller bounds the wait and cancels what it no
 * longer waits for; cancelling the future aborts the provider call. The counting request
 * never goes through the model's admission: it has its own budget.
 *
 * @see AnthropicTokenCounter
 */
@FunctionalInterface
public interface TokenCounter {

    /**
     * Starts counting the input tokens of {@code request}.
     * @param model the model the request is for (the body may name none)
     * @param request the request as the caller sends it
     * @return the count; completed exceptionally when the provider refused or failed
     */
    CompletableFuture<Long> countInputTokens(String model, ProviderRequest request);

}
