package io.github.llmthrottle.limit;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.limit.AdmissionQueue.Waiter;
import io.github.llmthrottle.time.Nanos;
import io.github.llmthrottle.time.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The waits of one {@link ModelLimiter}'s calls that hold no thread
 * ({@link ModelLimiter#acquireAsync}): they are entries of the same
 * {@link AdmissionQueue}, admitted by the same {@link AdmissionGate}, and this class does
 * for them what a waiting thread does for itself.
 * <ul>
 * <li>It completes their futures once the limiter's lock is released
 * ({@link #complete()}), so that what runs on admission never runs under the lock.</li>
 * <li>It keeps their timers on the {@link TimeSource} ({@link TimeSource#schedule}): the
 * deadline of each, and one wake-up of the limiter for the next moment at which time
 * alone could let the head of the queue go (a refill, the end of a pause).</li>
 * <li>It takes their buckets from a shared store on the time source's thread, the lock
 * released meanwhile, as a waiting thread takes its own.</li>
 * <li>A future completed or cancelled by its caller leaves the queue, giving back a
 * permit granted in the meantime.</li>
 * </ul>
 * Methods said to run with the lock held are called by the limiter's parts; the others
 * take it.
 */
final class AsyncAdmission {

    private final ModelLimiter limiter;

    private final ReentrantLock lock;

    private final TimeSource timeSource;

    /** Calls admitted or failed, whose futures are completed once the lock is free. */
    private final ConcurrentLinkedQueue<Waiter> completed = new ConcurrentLinkedQueue<>();

    /** How deep completions may nest on one thread ({@link #complete()}). */
    static final int MAX_NESTING = 16;

    /** How many loops completing this limiter's futures run on each thread. */
    private final ThreadLocal<int[]> nesting = ThreadLocal.withInitial(() -> new int[1]);

    // Guarded by lock.

    private TimeSource.@Nullable Scheduled wakeTimer;

    private long wakeAt = Long.MAX_VALUE;

    AsyncAdmission(ModelLimiter limiter, ReentrantLock lock, TimeSource timeSource) {
        this.limiter = limiter;
        this.lock = lock;
        this.timeSource = timeSource;
    }

    /**
     * Enqueues a call that holds no thread (see {@link ModelLimiter#acquireAsync}).
     */
    CompletableFuture<Permit> acquire(AdmissionRequest request) {
        this.lock.lock();
        try {
            long now = this.limiter.now();
            Waiter waiter = this.limiter.enqueue(request, now, null, this);
            CompletableFuture<Permit> future = Objects.requireNonNull(waiter.future);
            this.limiter.dispatchArrival(waiter, now);
            if (waiter.permit == null && waiter.failure == null) {
                waiter.deadlineTimer = this.timeSource.schedule(() -> expire(waiter),
                        Nanos.saturatedSubtract(waiter.deadline, now));
            }
            // even admitted at once, another thread may complete it after this returns
            leaveWhenGivenUp(waiter, future);
            return future;
        }
        catch (LlmThrottleException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        finally {
            this.lock.unlock();
            complete();
        }
    }

    /** Takes the call out of the queue if its caller completes or cancels its future. */
    private void leaveWhenGivenUp(Waiter waiter, CompletableFuture<Permit> future) {
        future.whenComplete((permit, failure) -> {
            // Runs on the completing thread: the permit or failure this class gave it is
            // visible there, anything else came from its caller.
            boolean given = (failure != null) ? failure == waiter.failure : permit != null && permit == waiter.permit;
            if (!given) {
                abandon(waiter);
            }
        });
    }

    /** A call was admitted or failed, with the lock held. */
    void completed(Waiter waiter) {
        this.completed.add(waiter);
    }

    /**
     * Completes the futures of the calls admitted or failed: called after the lock is
     * released (by whoever held it, so no completion waits for a timer). What runs on a
     * completion may release a permit and admit the next call, which completes it in a
     * nested loop; past {@link #MAX_NESTING} nested loops on one thread, the loops
     * already running complete it instead, so that a long chain of calls that each
     * release as the next is admitted does not overflow the stack.
     */
    void complete() {
        if (this.completed.isEmpty()) {
            return;
        }
        int[] depth = this.nesting.get();
        if (depth[0] >= MAX_NESTING) {
            return;
        }
        depth[0]++;
        try {
            Waiter waiter;
            while ((waiter = this.completed.poll()) != null) {
                complete(waiter);
            }
        }
        finally {
            depth[0]--;
        }
    }

    private void complete(Waiter waiter) {
        TimeSource.Scheduled timer = waiter.deadlineTimer;
        if (timer != null) {
            timer.cancel();
        }
        CompletableFuture<Permit> future = waiter.future;
        LimiterPermit permit = waiter.permit;
        if (future != null && waiter.failure != null) {
            future.completeExceptionally(waiter.failure);
        }
        else if (future != null && permit != null) {
            // if its caller completed or cancelled it first, the permit went back
            future.complete(permit);
        }
    }

    /**
     * Makes sure the limiter looks again at {@code wake} at the latest, with the lock
     * held: the head of the queue holds no thread that would. A timer set for later is
     * replaced; one set for sooner stays (the limiter then looks, and sets the next).
     */
    void wakeAt(long wake, long now) {
        if (wake == Long.MAX_VALUE || wake >= this.wakeAt) {
            return;
        }
        if (this.wakeTimer != null) {
            this.wakeTimer.cancel();
        }
        this.wakeAt = wake;
        this.wakeTimer = this.timeSource.schedule(this::wakeUp, Nanos.saturatedSubtract(wake, now));
    }

    private void wakeUp() {
        this.limiter.update((now) -> {
            this.wakeAt = Long.MAX_VALUE;
            this.wakeTimer = null;
        });
    }

    /**
     * Has a call take its buckets from the shared store on the time source's thread, with
     * the lock held: only the store's answer makes it wait.
     */
    void take(Waiter waiter) {
        this.timeSource.schedule(() -> locked(() -> {
            long now;
            try {
                this.limiter.take(waiter);
                now = this.limiter.now();
            }
            catch (InterruptedException ex) {
                // the timer's thread is not the call's: the call fails, the thread goes
                // on
                now = this.limiter.now();
                this.limiter.leave(waiter);
                waiter.fail(this.limiter.timeout(waiter, now));
                return;
            }
            if (waiter.abandoned) {
                this.limiter.leave(waiter);
            }
            else if (now >= waiter.deadline) {
                expireNow(waiter, now);
            }
        }), 0);
    }

    private void expire(Waiter waiter) {
        locked(() -> expireNow(waiter, this.limiter.now()));
    }

    /**
     * Fails a call still waiting at its deadline, with the lock held; one taking its
     * buckets is looked at again when the store answers.
     */
    private void expireNow(Waiter waiter, long now) {
        if (waiter.permit == null && waiter.failure == null && waiter.taking == null) {
            this.limiter.leave(waiter);
            waiter.fail(this.limiter.timeout(waiter, now));
        }
    }

    /**
     * Takes a call out of the queue once its caller completed or cancelled its future: a
     * permit granted meanwhile goes back; a call taking its buckets leaves when the store
     * answers.
     */
    private void abandon(Waiter waiter) {
        locked(() -> {
            if (waiter.taking != null) {
                waiter.abandoned = true;
                return;
            }
            if (waiter.deadlineTimer != null) {
                waiter.deadlineTimer.cancel();
            }
            this.limiter.leave(waiter);
        });
    }

    private void locked(Runnable action) {
        this.lock.lock();
        try {
            action.run();
        }
        finally {
            this.lock.unlock();
            complete();
        }
    }

}
