package io.github.llmthrottle.benchmarks.held;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.llmthrottle.store.redis.RedisBucketStore;

/**
 * Whether the Redis store is serving calls without Redis, read every 20 ms; records each
 * outage as the store saw it.
 */
final class StoreWatcher implements AutoCloseable {

    private final RedisBucketStore store;

    private final Thread thread;

    private final List<Duration[]> outages = new ArrayList<>();

    private final long start = System.nanoTime();

    volatile boolean down;

    private volatile boolean running = true;

    StoreWatcher(RedisBucketStore store) {
        this.store = store;
        this.thread = new Thread(this::watch, "soak-store-watcher");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void watch() {
        long since = 0;
        while (this.running) {
            boolean now = this.store.isUnavailable();
            if (now != this.down) {
                long t = System.nanoTime() - this.start;
                if (now) {
                    since = t;
                }
                else {
                    synchronized (this.outages) {
                        this.outages.add(new Duration[] { Duration.ofNanos(since), Duration.ofNanos(t) });
                    }
                }
                this.down = now;
            }
            try {
                Thread.sleep(20);
            }
            catch (InterruptedException ex) {
                return;
            }
        }
    }

    List<Duration[]> outages() {
        synchronized (this.outages) {
            return List.copyOf(this.outages);
        }
    }

    @Override
    public void close() {
        this.running = false;
        this.thread.interrupt();
    }

}
