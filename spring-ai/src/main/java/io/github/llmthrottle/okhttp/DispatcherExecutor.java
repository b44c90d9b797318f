package io.github.llmthrottle.okhttp;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The executor of an OkHttp {@code Dispatcher} that runs its enqueued calls
 * ({@code Call.enqueue}: the SDKs' async clients, Spring AI's {@code stream()}) on the
 * application's executor (Boot's {@code applicationTaskExecutor}, virtual threads when
 * {@code spring.threads.virtual.enabled}) instead of OkHttp's own pool: an enqueued call
 * to a throttled host waits there for admission, not on a dispatcher thread,
 * <pre class="code">
 * new OkHttpClient.Builder().dispatcher(new Dispatcher(new DispatcherExecutor(taskExecutor))).addInterceptor(interceptor).build();
 * </pre> Spring AI's models get one through llm-throttle's HTTP client customizers.
 * <p>
 * Shutting it down refuses further calls (OkHttp fails them) and leaves the application's
 * executor running: it is the application's.
 */
public final class DispatcherExecutor extends AbstractExecutorService {

    private final Executor executor;

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
        if (executor == null) {
            throw new IllegalArgumentException("The executor to run OkHttp's enqueued calls on is null");
        }
        this.executor = executor;
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
        try {
            this.executor.execute(() -> {
                try {
                    task.run();
                }
                finally {
                    finished();
                }
            });
        }
        catch (RuntimeException ex) {
            finished();
            throw (ex instanceof RejectedExecutionException rejected) ? rejected
                    : new RejectedExecutionException("The application's executor refused an OkHttp call", ex);
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
