package io.github.llmthrottle.time;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one daemon thread that runs the timed wake-ups of {@link TimeSource#system()}: it
 * only hands admissions to the calls that wait for them, so one thread serves every
 * limiter, however many calls wait. Created on first use.
 */
final class TimerThread {

    private TimerThread() {
    }

    static TimeSource.Scheduled schedule(Runnable task, long nanos) {
        ScheduledFuture<?> future = Holder.EXECUTOR.schedule(task, Math.max(nanos, 0), TimeUnit.NANOSECONDS);
        return () -> future.cancel(false);
    }

    /** Holds the executor, so that it starts only when something is first scheduled. */
    private static final class Holder {

        static final ScheduledThreadPoolExecutor EXECUTOR = executor();

        private static ScheduledThreadPoolExecutor executor() {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (task) -> {
                Thread thread = new Thread(task, "llm-throttle-timer");
                thread.setDaemon(true);
                return thread;
            });
            // cancelled deadlines of calls admitted in time would pile up otherwise
            executor.setRemoveOnCancelPolicy(true);
            return executor;
        }

    }

}
