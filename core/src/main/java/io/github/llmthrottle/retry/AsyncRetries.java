package io.github.llmthrottle.retry;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

import io.github.llmthrottle.retry.RetryEngine.AsyncAttempt;
import io.github.llmthrottle.time.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The retries of one call that does not block: each attempt's failure is counted, judged
 * and turned into a wait by the same {@link Retries} the blocking engine uses, and the
 * next attempt is scheduled on the {@link TimeSource} after that wait. Cancelling the
 * result cancels the attempt in progress or the scheduled retry.
 *
 * @param <T> the result type
 */
final class AsyncRetries<T> {

    private final Retries<T> retries;

    private final TimeSource time;

    private final AsyncAttempt<T> attempt;

    private final CompletableFuture<T> result = new CompletableFuture<>();

    /** The attempt in progress, cancelled with the result. */
    private volatile @Nullable CompletableFuture<T> current;

    /** The retry waiting to start, cancelled with the result. */
    private volatile TimeSource.@Nullable Scheduled next;

    AsyncRetries(Retries<T> retries, TimeSource time, AsyncAttempt<T> attempt) {
        this.retries = retries;
        this.time = time;
        this.attempt = attempt;
    }

    CompletableFuture<T> start() {
        this.result.whenComplete((value, failure) -> {
            if (this.result.isCancelled()) {
                cancelPending();
            }
        });
        run();
        return this.result;
    }

    private void run() {
        if (this.result.isDone()) {
            return;
        }
        CompletableFuture<T> started;
        try {
            started = this.attempt.start(this.retries.failures());
        }
        catch (RuntimeException | Error ex) {
            this.result.completeExceptionally(ex);
            return;
        }
        this.current = started;
        if (this.result.isCancelled()) {
            started.cancel(false);
            return;
        }
        started.whenComplete((value, failure) -> {
            if (failure == null) {
                this.result.complete(value);
            }
            else {
                failed(RetryEngine.causeOf(failure));
            }
        });
    }

    private void failed(Throwable failure) {
        if (this.result.isDone()) {
            return;
        }
        if (!(failure instanceof Exception exception) || failure instanceof CancellationException) {
            this.result.completeExceptionally(failure);
            return;
        }
        try {
            RetryableResponseException retryable = this.retries.failed(exception);
            if (!this.retries.retries(retryable)) {
                this.result.completeExceptionally(this.retries.giveUp(retryable));
                return;
            }
            Duration wait = this.retries.waitBeforeRetry();
            this.next = this.time.schedule(this::run, wait.toNanos());
            if (this.result.isCancelled()) {
                cancelPending();
            }
        }
        catch (Exception | Error ex) {
            this.result.completeExceptionally(ex);
        }
    }

    private void cancelPending() {
        TimeSource.Scheduled scheduled = this.next;
        if (scheduled != null) {
            scheduled.cancel();
        }
        CompletableFuture<T> attempt = this.current;
        if (attempt != null) {
            attempt.cancel(false);
        }
    }

}
