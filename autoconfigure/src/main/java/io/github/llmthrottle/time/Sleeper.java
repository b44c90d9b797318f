package io.github.llmthrottle.time;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Waits for a while. The core never calls {@link Thread#sleep} directly, so tests can pass a fake
 * clock that advances instead of sleeping.
 */
@FunctionalInterface
public interface Sleeper {

    /** Sleeps on the calling thread, friendly to virtual threads. */
    Sleeper SYSTEM = (duration) -> {
        if (!duration.isNegative() && !duration.isZero()) {
            TimeUnit.NANOSECONDS.sleep(duration.toNanos());
        }
    };

    /**
     * Waits for {@code duration}; a zero or negative duration returns at once.
     * @param duration how long to wait
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    void sleep(Duration duration) throws InterruptedException;

}
