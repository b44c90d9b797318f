package io.github.llmthrottle.benchmarks.memory;

import java.lang.management.ManagementFactory;

/**
 * Reads the used heap, after full collections when a figure has to be compared with
 * another: the one way every memory figure of the benchmarks is taken.
 */
public final class Heap {

    private Heap() {
    }

    /**
     * The used heap after four {@code System.gc()} (the least of the four readings, 50 ms
     * apart, so that a collection still finishing does not count).
     * @return used heap in bytes
     */
    public static long usedAfterGc() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            try {
                Thread.sleep(50);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            used = Math.min(used, used());
        }
        return used;
    }

    /**
     * The used heap now, garbage included.
     * @return used heap in bytes
     */
    public static long used() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

}
