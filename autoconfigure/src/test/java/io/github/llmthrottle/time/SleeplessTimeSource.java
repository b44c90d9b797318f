package io.github.llmthrottle.time;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * The system's time for tests that must not sleep between retries: clocks and waiting for
 * admission are real, each sleep is handed to a consumer (to record it) instead.
 */
public final class SleeplessTimeSource implements TimeSource {

    private final Consumer<Duration> sleeps;

    public SleeplessTimeSource(Consumer<Duration> sleeps) {
        this.sleeps = sleeps;
    }

    @Override
    public Instant instant() {
        return TimeSource.system().instant();
    }

    @Override
    public long nanoTime() {
        return TimeSource.system().nanoTime();
    }

    @Override
    public void sleep(Duration duration) {
        this.sleeps.accept(duration);
    }

}
