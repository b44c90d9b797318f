package io.github.llmthrottle.time;

import java.time.Duration;
import java.time.Instant;

/**
 * The system's time, except that its wall clock starts at noon UTC of a fixed day: for
 * tests of a whole application against a simulator, which sleep and wait for real, and
 * whose day and month windows (token quotas) must not end during the test, whatever the
 * day and time it runs. The wall clock moves with the monotonic clock; give the simulator
 * the same {@link #clock()}, so that the instants in its headers agree with the
 * application's.
 */
public final class NoonTimeSource implements TimeSource {

    /** Where the wall clock starts: twelve hours from the end of the day. */
    public static final Instant NOON = Instant.parse("2026-06-15T12:00:00Z");

    private final long startNanos = System.nanoTime();

    @Override
    public Instant instant() {
        return NOON.plusNanos(System.nanoTime() - this.startNanos);
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public void sleep(Duration duration) throws InterruptedException {
        TimeSource.system().sleep(duration);
    }

}
