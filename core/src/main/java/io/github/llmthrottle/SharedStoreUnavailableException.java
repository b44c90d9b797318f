package io.github.llmthrottle;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a call cannot be admitted because the shared bucket store
 * ({@code llm.throttle.store=redis}) does not answer and the configuration says to reject
 * calls rather than serve them from local buckets
 * ({@code llm.throttle.redis.on-failure=reject}). The store is tried again after a short
 * back-off; {@link #getRetryAfter()} says when.
 */
public class SharedStoreUnavailableException extends LlmThrottleException {

    public SharedStoreUnavailableException(String client, String model, @Nullable Duration retryAfter,
            @Nullable Throwable cause) {
        super("Shared bucket store (Redis) unavailable for " + describe(client, model)
                + ": the call is rejected because llm.throttle.redis.on-failure is reject" + retryHint(retryAfter),
                client, model, retryAfter, cause);
    }

}
