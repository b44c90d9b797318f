package io.github.llmthrottle.sample;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.client.ThrottleObserver;

import org.springframework.stereotype.Component;

/**
 * A {@link ThrottleObserver} of the sample's own, to show how the SPI is used: it records
 * how long each admitted call waited in the queue, by priority, for the demo's summary
 * table.
 */
@Component
class QueueWaitRecorder implements ThrottleObserver {

    private final Map<Priority, ConcurrentLinkedQueue<Long>> waits = new EnumMap<>(Priority.class);

    QueueWaitRecorder() {
        for (Priority priority : Priority.values()) {
            this.waits.put(priority, new ConcurrentLinkedQueue<>());
        }
    }

    @Override
    public void onAdmitted(String client, String model, Priority priority, Duration waited) {
        this.waits.get(priority).add(waited.toMillis());
    }

    long[] waitsMillis(Priority priority) {
        return this.waits.get(priority).stream().mapToLong(Long::longValue).sorted().toArray();
    }

    void clear() {
        this.waits.values().forEach(ConcurrentLinkedQueue::clear);
    }

}
