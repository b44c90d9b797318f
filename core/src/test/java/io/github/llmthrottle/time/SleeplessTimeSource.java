package io.github.llmthrottle.time;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The system's time for tests that must not sleep between retries: the monotonic clock
 * and waiting for admission are real, each sleep is handed to a consumer (to record it)
 * instead. The wall clock is the system's unless one is given (a fixed instant, for tests
 * whose dates must not depend on the day they run).
 */
public final class SleeplessTimeSource implements TimeSource {

    private final Consumer<Duration> sleeps;

    private final Supplier<Instant> wallClock;

    public SleeplessTimeSource(Consumer<Duration> sleeps) {
        this(sleeps, TimeSource.system()::instant);
    }

    public SleeplessTimeSource(Consumer<Duration> sleeps, Supplier<Instant> wallClock) {
        this.sleeps = sleeps;
        this.wallClock = wallClock;
    }

    @Override
    public Instant instant() {
        return this.wallClock.get();
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
