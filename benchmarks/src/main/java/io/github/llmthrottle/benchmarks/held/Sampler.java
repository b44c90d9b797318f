package io.github.llmthrottle.benchmarks.held;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Samples on a daemon thread of its own, every {@code every} from {@code start}. */
final class Sampler {

    private final Thread thread;

    private volatile boolean running = true;

    Sampler(long start, Duration every, Runnable sample) {
        this.thread = new Thread(() -> {
            for (long next = start + every.toNanos(); this.running; next += every.toNanos()) {
                long sleep = next - System.nanoTime();
                try {
                    if (sleep > 0) {
                        TimeUnit.NANOSECONDS.sleep(sleep);
                    }
                }
                catch (InterruptedException ex) {
                    return;
                }
                if (this.running) {
                    sample.run();
                }
            }
        }, "soak-sampler");
        this.thread.setDaemon(true);
    }

    void start() {
        this.thread.start();
    }

    void stop() throws InterruptedException {
        this.running = false;
        this.thread.interrupt();
        this.thread.join(TimeUnit.SECONDS.toMillis(30));
    }

}
