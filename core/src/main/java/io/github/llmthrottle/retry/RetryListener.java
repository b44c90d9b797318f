package io.github.llmthrottle.retry;

import java.time.Duration;

/**
 * Observes the {@link RetryEngine}, for metrics and logs ({@code llm.retries},
 * {@code llm.retry.after}). Called on the calling thread; an exception thrown here is
 * logged and otherwise ignored. Not to be confused with Spring Framework's
 * {@code org.springframework.core.retry.RetryListener}, which this library does not use.
 */
public interface RetryListener {

    /** A listener that does nothing. */
    RetryListener NONE = new RetryListener() {
    };

    /**
     * Called before sleeping ahead of a retry.
     * @param client the client name
     * @param model the model name
     * @param classification why the previous attempt failed
     * ({@link Classification#reason()} is the {@code llm.retries} reason tag)
     * @param wait how long the engine is about to sleep
     * @param retryCount the 1-based index of the retry about to be made
     */
    default void onRetry(String client, String model, Classification classification, Duration wait, int retryCount) {
    }

    /**
     * Called for every retryable failure whose response carried a server wait, including
     * waits too long to honour.
     * @param client the client name
     * @param model the model name
     * @param wait the server's wait
     */
    default void onServerWait(String client, String model, Duration wait) {
    }

}
