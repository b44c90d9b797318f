package io.github.llmthrottle.okhttp;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.github.llmthrottle.client.HeldAdmission;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import okhttp3.Call;
import okhttp3.internal.connection.RealCall;
import org.jspecify.annotations.Nullable;

/**
 * The executor of an OkHttp {@code Dispatcher} that runs its enqueued calls
 * ({@code Call.enqueue}: the SDKs' async clients, Spring AI's {@code stream()}) on the
 * application's executor (Boot's {@code applicationTaskExecutor}, virtual threads when
 * {@code spring.threads.virtual.enabled}) instead of OkHttp's own pool,
 * <pre class="code">
 * new OkHttpClient.Builder().dispatcher(new Dispatcher(new DispatcherExecutor(taskExecutor, registry))).addInterceptor(interceptor).build();
 * </pre> Spring AI's models get one through llm-throttle's HTTP client customizers.
 * <p>
 * Given the registry, an enqueued model call to a throttled host waits for its first
 * admission as a queue entry, holding no thread, with the caller's priority and tenant as
 * they were when it was enqueued; only once admitted does it go to the application's
 * executor, where the interceptor's first attempt uses that admission (a retry after a
 * 429 waits there for its own). An admission the call does not use (the executor refuses
 * it, the interceptor never runs, or its request changed on the way) is given back; a
 * call cancelled while it waits leaves the queue and its callback gets the failure; a
 * call refused at admission fails through its callback with the refusal. Without the
 * registry, or for any other call, the call waits for admission on the executor's thread.
 * <p>
 * Shutting it down refuses further calls (OkHttp fails them) and leaves the application's
 * executor running: it is the application's.
 */
public final class DispatcherExecutor extends AbstractExecutorService {

    private final Executor executor;

    private final @Nullable LlmThrottleRegistry registry;

    private final ReentrantLock lock = new ReentrantLock();

    private final Condition idle = this.lock.newCondition();

    private int running;

    private boolean shutdown;

    /**
     * Creates the executor.
     * @param executor where the dispatcher's calls run
     * @throws IllegalArgumentException when {@code executor} is {@code null}
     */
    public DispatcherExecutor(Executor executor) {
        this(executor, null);
    }

    /**
     * Creates the executor, whose enqueued calls to the registry's hosts wait for their
     * first admission holding no thread.
     * @param executor where the dispatcher's calls run, once admitted
     * @param registry the configured clients, or {@code null} to wait on the executor
     * @throws IllegalArgumentException when {@code executor} is {@code null}
     */
    public DispatcherExecutor(Executor executor, @Nullable LlmThrottleRegistry registry) {
        if (executor == null) {
            throw new IllegalArgumentException("The executor to run OkHttp's enqueued calls on is null");
        }
        this.executor = executor;
        this.registry = registry;
    }

    @Override
    public void execute(Runnable task) {
        this.lock.lock();
        try {
            if (this.shutdown) {
                throw new RejectedExecutionException("The OkHttp dispatcher's executor is shut down");
            }
            this.running++;
        }
        finally {
            this.lock.unlock();
        }
        LlmThrottleRegistry clients = this.registry;
        RealCall call = (clients != null) ? EnqueuedAdmissions.callOf(task) : null;
        CompletableFuture<@Nullable HeldAdmission> admission = (clients != null && call != null)
                ? EnqueuedAdmissions.admitAhead(call, clients) : null;
        if (call == null || admission == null) {
            try {
                this.executor.execute(() -> run(task, null));
            }
            catch (RuntimeException ex) {
                finished();
                throw (ex instanceof RejectedExecutionException rejected) ? rejected
                        : new RejectedExecutionException("The application's executor refused an OkHttp call", ex);
            }
            return;
        }
        CallCancellations.Watch waiting = CallCancellations.watch(call, () -> admission.cancel(false));
        admission.whenComplete((held, failure) -> {
            waiting.stop();
            admitted(task, call, held);
        });
    }

    /**
     * The enqueued call was admitted (or refused, or cancelled): it runs on the
     * application's executor, its admission held for its first attempt. When the executor
     * refuses it, the call is cancelled, its admission given back, and it runs to its
     * failure on a thread of its own (OkHttp's dispatcher, which would fail it, is long
     * gone by now).
     */
    private void admitted(Runnable task, Call call, @Nullable HeldAdmission held) {
        if (held != null) {
            EnqueuedAdmissions.hold(call, held);
        }
        try {
            this.executor.execute(() -> run(task, call));
        }
        catch (RuntimeException ex) {
            EnqueuedAdmissions.release(call);
            call.cancel();
            Thread failing = new Thread(() -> run(task, call), "llm-throttle-okhttp-refused");
            failing.setDaemon(true);
            failing.start();
        }
    }

    private void run(Runnable task, @Nullable Call call) {
        try {
            task.run();
        }
        finally {
            if (call != null) {
                EnqueuedAdmissions.release(call);
            }
            finished();
        }
    }

    private void finished() {
        this.lock.lock();
        try {
            if (--this.running == 0) {
                this.idle.signalAll();
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    @Override
    public void shutdown() {
        this.lock.lock();
        try {
            this.shutdown = true;
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Refuses further calls; the running ones run on, since they are the application's
     * executor's tasks.
     * @return none
     */
    @Override
    public List<Runnable> shutdownNow() {
        shutdown();
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        this.lock.lock();
        try {
            return this.shutdown;
        }
        finally {
            this.lock.unlock();
        }
    }

    @Override
    public boolean isTerminated() {
        this.lock.lock();
        try {
            return this.shutdown && this.running == 0;
        }
        finally {
            this.lock.unlock();
        }
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        this.lock.lock();
        try {
            while (!(this.shutdown && this.running == 0)) {
                if (nanos <= 0) {
                    return false;
                }
                nanos = this.idle.awaitNanos(nanos);
            }
            return true;
        }
        finally {
            this.lock.unlock();
        }
    }

}
