package io.github.llmthrottle.benchmarks.held;

import java.util.concurrent.atomic.AtomicLong;

import io.github.llmthrottle.benchmarks.memory.Heap;

/**
 * The highest used heap seen while it runs, garbage included, read every 50 ms on a
 * daemon thread of its own.
 */
final class HeapPeak implements AutoCloseable {

    private final AtomicLong peak = new AtomicLong(Heap.used());

    private final Thread sampler;

    private volatile boolean running = true;

    HeapPeak() {
        this.sampler = new Thread(this::sample, "heap-peak");
        this.sampler.setDaemon(true);
        this.sampler.start();
    }

    private void sample() {
        while (this.running) {
            this.peak.accumulateAndGet(Heap.used(), Math::max);
            try {
                Thread.sleep(50);
            }
            catch (InterruptedException ex) {
                return;
            }
        }
    }

    /**
     * The highest used heap so far.
     * @return bytes
     */
    long peak() {
        return this.peak.accumulateAndGet(Heap.used(), Math::max);
    }

    @Override
    public void close() {
        this.running = false;
        this.sampler.interrupt();
    }

}
