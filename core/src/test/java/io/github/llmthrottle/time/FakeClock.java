package io.github.llmthrottle.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;

import org.jspecify.annotations.Nullable;

/**
 * A time source for tests that only moves when told to: its sleeps advance it and are
 * recorded instead of waiting, and its wall clock and monotonic clock move together.
 */
public final class FakeClock extends Clock implements TimeSource {

    private final AtomicLong nanos;

    private final List<Duration> sleeps = new CopyOnWriteArrayList<>();

    private volatile Waits waits = Waits.REAL;

    private final PriorityQueue<FakeTask> tasks = new PriorityQueue<>(
            Comparator.comparingLong(FakeTask::at).thenComparingLong(FakeTask::sequence));

    private final AtomicLong sequence = new AtomicLong();

    public FakeClock(Instant start) {
        this.nanos = new AtomicLong(start.getEpochSecond() * 1_000_000_000L + start.getNano());
    }

    public static FakeClock at(String instant) {
        return new FakeClock(Instant.parse(instant));
    }

    /**
     * Makes waits for admission move this clock forward by the whole wait instead of
     * waiting, as if nothing signalled the caller in the meantime: for single-threaded
     * tests.
     * @return this clock
     */
    public FakeClock advancingWaits() {
        this.waits = Waits.ADVANCE;
        return this;
    }

    /**
     * Makes waits for admission wait at most a millisecond of real time, so the caller
     * re-reads this clock that the test moves: for tests with real threads, whose
     * deadlines pass only when the test advances the clock.
     * @return this clock
     */
    public FakeClock pollingWaits() {
        this.waits = Waits.POLL;
        return this;
    }

    @Override
    public void await(Condition condition, long nanos) throws InterruptedException {
        switch (this.waits) {
            case ADVANCE -> {
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedException();
                }
                advance(Duration.ofNanos(nanos));
            }
            case POLL -> condition.awaitNanos(TimeUnit.MILLISECONDS.toNanos(1));
            case REAL -> TimeSource.super.await(condition, nanos);
        }
    }

    /**
     * Moves this clock forward, stopping at the time of each scheduled task due meanwhile
     * to run it on the calling thread; {@code advance(Duration.ZERO)} runs those due now.
     * @param duration how far
     */
    public void advance(Duration duration) {
        long target = this.nanos.get() + duration.toNanos();
        FakeTask due;
        while ((due = nextDue(target)) != null) {
            long at = due.at;
            this.nanos.updateAndGet((now) -> Math.max(now, at));
            due.task.run();
        }
        this.nanos.updateAndGet((now) -> Math.max(now, target));
    }

    private @Nullable FakeTask nextDue(long now) {
        synchronized (this.tasks) {
            FakeTask next = this.tasks.peek();
            return (next != null && next.at <= now) ? this.tasks.poll() : null;
        }
    }

    /**
     * Keeps {@code task} until this clock is advanced to its time (tasks due at once run
     * at the next {@link #advance}).
     */
    @Override
    public Scheduled schedule(Runnable task, long nanos) {
        FakeTask scheduled = new FakeTask(Nanos.saturatedAdd(nanoTime(), Math.max(nanos, 0)),
                this.sequence.getAndIncrement(), task);
        synchronized (this.tasks) {
            this.tasks.add(scheduled);
        }
        return () -> {
            synchronized (this.tasks) {
                this.tasks.remove(scheduled);
            }
        };
    }

    /** How many scheduled tasks have not run yet (cancelled ones are gone). */
    public int scheduledTasks() {
        synchronized (this.tasks) {
            return this.tasks.size();
        }
    }

    public List<Duration> sleeps() {
        return List.copyOf(this.sleeps);
    }

    @Override
    public void sleep(Duration duration) throws InterruptedException {
        if (Thread.currentThread().isInterrupted()) {
            throw new InterruptedException();
        }
        this.sleeps.add(duration);
        if (!duration.isNegative()) {
            advance(duration);
        }
    }

    @Override
    public Clock clock() {
        return this;
    }

    @Override
    public long nanoTime() {
        return this.nanos.get();
    }

    @Override
    public Instant instant() {
        long n = this.nanos.get();
        return Instant.ofEpochSecond(Math.floorDiv(n, 1_000_000_000L), Math.floorMod(n, 1_000_000_000L));
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    private record FakeTask(long at, long sequence, Runnable task) {
    }

    private enum Waits {

        REAL, ADVANCE, POLL

    }

}
