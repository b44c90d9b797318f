package io.github.llmthrottle.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * The one source of time of llm-throttle: the wall clock (for instants the provider
 * speaks of: HTTP dates, reset times, what the endpoint shows), a monotonic clock (for
 * every wait and every duration measured) and the ways to wait. Injected everywhere, so
 * that whole-context tests run on a fake time source instead of sleeping;
 * {@link #system()} outside tests.
 */
public interface TimeSource {

    /**
     * The time of this machine.
     * @return the system time source
     */
    static TimeSource system() {
        return SystemTimeSource.INSTANCE;
    }

    /**
     * The wall-clock time now.
     * @return the current instant
     */
    Instant instant();

    /**
     * A monotonic time in nanoseconds, only meaningful as the difference of two values,
     * as {@link System#nanoTime()}.
     * @return the monotonic time
     */
    long nanoTime();

    /**
     * Sleeps on the calling thread (between retries); a zero or negative duration returns
     * at once. The core never calls {@link Thread#sleep} directly.
     * @param duration how long to wait
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    void sleep(Duration duration) throws InterruptedException;

    /**
     * Waits until {@code condition} is signalled or about {@code nanos} have passed on
     * this time source, whichever comes first. Called with the condition's lock held,
     * like {@link Condition#awaitNanos(long)}; may return early (callers re-check their
     * state).
     * @param condition the condition to wait on
     * @param nanos the longest wait in nanoseconds
     * @throws InterruptedException if the thread is interrupted
     */
    default void await(Condition condition, long nanos) throws InterruptedException {
        if (nanos > 0) {
            condition.awaitNanos(nanos);
        }
    }

    /**
     * Runs {@code task} once, about {@code nanos} from now on this time source (at once
     * if zero or negative), on a thread that is not the caller's: the timed wake-ups of
     * calls that wait without a thread (the end of a pause, a refill, a deadline). The
     * system's time source runs every task on one shared daemon thread, so tasks must be
     * short and never block; a test's time source runs them when it moves.
     * @param task what to run
     * @param nanos how long from now, in nanoseconds of {@link #nanoTime()}
     * @return the handle that cancels the task if it has not run yet
     */
    default Scheduled schedule(Runnable task, long nanos) {
        return TimerThread.schedule(task, nanos);
    }

    /**
     * This time source's wall clock as a {@link Clock} (UTC), for APIs that take one.
     * @return the clock
     */
    default Clock clock() {
        return new TimeSourceClock(this);
    }

    /** A task given to {@link #schedule(Runnable, long)}, until it runs. */
    @FunctionalInterface
    interface Scheduled {

        /** Makes sure the task will not run, if it has not started yet. */
        void cancel();

    }

    /** The system's clocks, sleeping and waiting for real. */
    final class SystemTimeSource implements TimeSource {

        static final SystemTimeSource INSTANCE = new SystemTimeSource();

        private SystemTimeSource() {
        }

        @Override
        public Instant instant() {
            return Instant.now();
        }

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public void sleep(Duration duration) throws InterruptedException {
            if (!duration.isNegative() && !duration.isZero()) {
                TimeUnit.NANOSECONDS.sleep(duration.toNanos());
            }
        }

        @Override
        public Clock clock() {
            return Clock.systemUTC();
        }

        @Override
        public String toString() {
            return "TimeSource.system()";
        }

    }

    /** A {@link Clock} reading a time source's wall clock. */
    final class TimeSourceClock extends Clock {

        private final TimeSource source;

        TimeSourceClock(TimeSource source) {
            this.source = source;
        }

        @Override
        public Instant instant() {
            return this.source.instant();
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

    }

}
