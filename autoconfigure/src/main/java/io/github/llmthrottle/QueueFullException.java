package io.github.llmthrottle;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a call finds the admission queue of its model full
 * ({@code llm.throttle.queue.capacity}).
 */
public class QueueFullException extends LlmThrottleException {

    public QueueFullException(String client, String model, int capacity, @Nullable Duration retryAfter) {
        super("Admission queue full for " + describe(client, model) + " (capacity " + capacity + ")"
                + retryHint(retryAfter), client, model, retryAfter, null);
    }

    @Override
    public RejectionReason getRejectionReason() {
        return RejectionReason.QUEUE_FULL;
    }

}
