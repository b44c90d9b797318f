package io.github.llmthrottle.time;

import java.time.Duration;

/**
 * Waits for a while. The core never calls {@link Thread#sleep} directly, so tests can pass a fake
 * clock that advances instead of sleeping; {@link TimeSource} is the one implementation outside
 * tests.
 */
@FunctionalInterface
public interface Sleeper {

    /**
     * Waits for {@code duration}; a zero or negative duration returns at once.
     * @param duration how long to wait
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    void sleep(Duration duration) throws InterruptedException;

}
