package io.github.llmthrottle.okhttp;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import okhttp3.Call;
import org.jspecify.annotations.Nullable;

/**
 * Acts on the cancellation of OkHttp calls: OkHttp tells nobody when a call is cancelled
 * ({@code Call.cancel()}), so the watched calls are looked at every {@link #POLL} while
 * any is watched, on one daemon thread that goes away when none is.
 */
final class CallCancellations {

    /** How often the watched calls are looked at for a cancellation. */
    static final Duration POLL = Duration.ofMillis(10);

    private static final Map<Watch, Call> watched = new ConcurrentHashMap<>();

    private static final ReentrantLock lock = new ReentrantLock();

    private static final ScheduledThreadPoolExecutor poller = poller();

    private static @Nullable ScheduledFuture<?> polling;

    private CallCancellations() {
    }

    /**
     * Runs {@code onCancel} once when {@code call} is cancelled, until the returned watch
     * is closed; at once when it is cancelled already.
     * @param call the call to watch
     * @param onCancel what to do when it is cancelled
     * @return the watch, to close when the cancellation no longer matters
     */
    static Watch watch(Call call, Runnable onCancel) {
        Watch watch = new Watch(onCancel);
        lock.lock();
        try {
            watched.put(watch, call);
            if (polling == null) {
                long period = POLL.toNanos();
                polling = poller.scheduleWithFixedDelay(CallCancellations::poll, period, period, TimeUnit.NANOSECONDS);
            }
        }
        finally {
            lock.unlock();
        }
        if (call.isCanceled()) {
            watch.cancelled();
        }
        return watch;
    }

    /** Acts on the watched calls that are cancelled; stops when none is watched. */
    private static void poll() {
        watched.forEach((watch, call) -> {
            if (call.isCanceled()) {
                watch.cancelled();
            }
        });
        lock.lock();
        try {
            if (watched.isEmpty() && polling != null) {
                polling.cancel(false);
                polling = null;
            }
        }
        finally {
            lock.unlock();
        }
    }

    private static ScheduledThreadPoolExecutor poller() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (task) -> {
            Thread thread = new Thread(task, "llm-throttle-okhttp-cancel");
            thread.setDaemon(true);
            return thread;
        });
        executor.setKeepAliveTime(1, TimeUnit.MINUTES);
        executor.allowCoreThreadTimeOut(true);
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    /**
     * The watch of one call: its action runs at most once, and never after the watch is
     * closed.
     */
    static final class Watch implements AutoCloseable {

        private final ReentrantLock state = new ReentrantLock();

        private final Runnable onCancel;

        private boolean done;

        private boolean acted;

        private Watch(Runnable onCancel) {
            this.onCancel = onCancel;
        }

        private void cancelled() {
            watched.remove(this);
            this.state.lock();
            try {
                if (!this.done) {
                    this.done = true;
                    this.acted = true;
                    this.onCancel.run();
                }
            }
            finally {
                this.state.unlock();
            }
        }

        /**
         * Stops watching: the action does not run from now on.
         * @return whether it ran
         */
        boolean stop() {
            watched.remove(this);
            this.state.lock();
            try {
                this.done = true;
                return this.acted;
            }
            finally {
                this.state.unlock();
            }
        }

        @Override
        public void close() {
            stop();
        }

    }

}
