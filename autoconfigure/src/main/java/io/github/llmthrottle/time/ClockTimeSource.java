package io.github.llmthrottle.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * A {@link TimeSource} over a {@link Clock}, for code that holds only a clock: the wall time is
 * the clock's, and for lack of a monotonic clock {@link #nanoTime()} counts the clock's
 * nanoseconds since the epoch, so that a fixed or fake clock drives both. Sleeps and waits are
 * real. A clock that already is a time source (a test's fake clock) is used as it is.
 */
public final class ClockTimeSource implements TimeSource {

    private final Clock clock;

    private ClockTimeSource(Clock clock) {
        this.clock = clock;
    }

    /**
     * The time source of a clock.
     * @param clock the clock
     * @return the clock itself if it is a time source, else a time source reading it
     */
    public static TimeSource of(Clock clock) {
        return (clock instanceof TimeSource source) ? source : new ClockTimeSource(clock);
    }

    @Override
    public Instant instant() {
        return this.clock.instant();
    }

    @Override
    public long nanoTime() {
        return Nanos.between(Instant.EPOCH, this.clock.instant());
    }

    @Override
    public void sleep(Duration duration) throws InterruptedException {
        TimeSource.system().sleep(duration);
    }

    @Override
    public Clock clock() {
        return this.clock;
    }

    @Override
    public String toString() {
        return "ClockTimeSource[" + this.clock + "]";
    }

}
