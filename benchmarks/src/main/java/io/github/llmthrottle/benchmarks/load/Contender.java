package io.github.llmthrottle.benchmarks.load;

/**
 * One way of calling the provider under load: llm-throttle, a hand-rolled retry loop,
 * Resilience4j, or the official SDK. A contender is created for one run against one
 * simulator and closed after it.
 */
public interface Contender extends AutoCloseable {

    /**
     * Makes one Messages call with this contender's retry and rate-limit policy.
     * @param prompt the user message
     * @throws Exception if the call failed after whatever retries the contender makes
     */
    void call(String prompt) throws Exception;

    /**
     * Sends one request the way this contender's own state would see it, without retries,
     * to empty the provider's buckets before the run. Only a contender that keeps its own
     * buckets (llm-throttle) needs to see the drain; the others send it with a plain
     * client.
     * @param body the JSON body
     * @return {@code true} if this contender sent it, {@code false} if the caller should
     * send it with a plain client
     */
    default boolean drain(String body) {
        return false;
    }

    /**
     * Which limits the provider's 429s to this contender's attempts were for, and when,
     * for contenders that see their attempts.
     * @param startNanos when the run started, on {@link System#nanoTime()}
     * @return a line for the report, or {@code null} when this contender does not know
     */
    default String rateLimitedBy(long startNanos) {
        return null;
    }

    @Override
    default void close() {
    }

}
