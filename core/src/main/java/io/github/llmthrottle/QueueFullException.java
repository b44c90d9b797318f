package io.github.llmthrottle;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a call finds the admission queue of its model full
 * ({@code llm.throttle.queue.capacity}), or its tenant already holding its share of the
 * queue (half of the capacity), so that one tenant held back by its own quota cannot keep
 * every other tenant out.
 */
public class QueueFullException extends LlmThrottleException {

    public QueueFullException(String client, String model, int capacity, @Nullable Duration retryAfter) {
        super("Admission queue full for " + describe(client, model) + " (capacity " + capacity + ")"
                + retryHint(retryAfter), client, model, retryAfter, null);
    }

    /**
     * Creates the exception for a tenant that already holds its share of the queue.
     * @param client the client name
     * @param model the model name
     * @param tenant the tenant
     * @param share the places one tenant may hold
     * @param capacity the places of the queue
     */
    public QueueFullException(String client, String model, String tenant, int share, int capacity) {
        super("Tenant '" + tenant + "' already holds its share of the admission queue for " + describe(client, model)
                + " (" + share + " of " + capacity + " places)", client, model, null, null);
    }

    @Override
    public RejectionReason getRejectionReason() {
        return RejectionReason.QUEUE_FULL;
    }

}
