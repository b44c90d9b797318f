package io.github.llmthrottle.limit;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A call to {@link Admission#acquire} on a thread of its own, so that a test can make
 * several calls wait at once and interrupt them.
 */
final class AsyncAcquire {

    final CompletableFuture<Permit> result = new CompletableFuture<>();

    final AtomicBoolean interruptFlagAfterwards = new AtomicBoolean();

    final Thread thread;

    private AsyncAcquire(Admission admission, AdmissionRequest request) {
        this.thread = new Thread(() -> {
            try {
                this.result.complete(admission.acquire(request));
            }
            catch (Throwable ex) {
                this.interruptFlagAfterwards.set(Thread.currentThread().isInterrupted());
                this.result.completeExceptionally(ex);
            }
        }, "acquire");
        this.thread.setDaemon(true);
    }

    static AsyncAcquire start(Admission admission, AdmissionRequest request) {
        AsyncAcquire acquire = new AsyncAcquire(admission, request);
        acquire.thread.start();
        return acquire;
    }

    boolean admitted() {
        return this.result.isDone() && !this.result.isCompletedExceptionally();
    }

    Permit permit() {
        try {
            return this.result.get(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException | ExecutionException | java.util.concurrent.TimeoutException ex) {
            throw new IllegalStateException(ex);
        }
    }

    Throwable failure() {
        try {
            this.result.get(10, TimeUnit.SECONDS);
            throw new IllegalStateException("admitted");
        }
        catch (ExecutionException ex) {
            return ex.getCause();
        }
        catch (InterruptedException | java.util.concurrent.TimeoutException ex) {
            throw new IllegalStateException(ex);
        }
    }

}
