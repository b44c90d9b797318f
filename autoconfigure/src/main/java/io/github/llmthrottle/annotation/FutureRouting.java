package io.github.llmthrottle.annotation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.routing.Route;
import org.jspecify.annotations.Nullable;

/**
 * Routes an invocation of a {@code @Throttled} method returning a
 * {@link CompletableFuture} or a {@link CompletionStage}: the caller gets a new future at
 * once; when the method's future fails with a throttling failure, the method runs again
 * for the next candidate model (on the thread that completed the failed future), and when
 * none is left the fallback method's future completes the caller's one.
 * <p>
 * The invocation's {@link ThrottleContext} is current on the thread that runs the method
 * for each candidate, while it runs; code the method hands to another thread must carry
 * it (Micrometer's {@code ContextSnapshot}, or a context-propagating executor).
 * Cancelling the caller's future cancels the candidate's future in flight and tries no
 * other candidate.
 */
final class FutureRouting {

    private final AsyncInvocation invocation;

    private final Route route;

    private final CompletableFuture<@Nullable Object> result = new CompletableFuture<>();

    private volatile @Nullable CompletionStage<?> inFlight;

    private FutureRouting(AsyncInvocation invocation) {
        this.invocation = invocation;
        this.route = invocation.start();
    }

    /**
     * Routes an invocation, running the method for its first candidate before returning.
     * @param invocation the invocation
     * @return the caller's future
     */
    static CompletableFuture<@Nullable Object> route(AsyncInvocation invocation) {
        FutureRouting routing = new FutureRouting(invocation);
        routing.result.whenComplete((value, ex) -> {
            if (routing.result.isCancelled()) {
                routing.cancelInFlight();
            }
        });
        routing.next();
        return routing.result;
    }

    private void next() {
        while (!this.result.isDone()) {
            ThrottleContext context = this.route.next();
            if (context == null) {
                recover();
                return;
            }
            CompletionStage<?> stage;
            try {
                stage = stage(this.invocation.invoke(context));
            }
            catch (Throwable ex) {
                if (this.route.failed(ex)) {
                    continue;
                }
                this.result.completeExceptionally(ex);
                return;
            }
            await(stage, this::completed);
            return;
        }
    }

    private void completed(@Nullable Object value, @Nullable Throwable failure) {
        if (failure == null) {
            this.result.complete(value);
            return;
        }
        Throwable cause = unwrap(failure);
        if (!this.result.isDone() && this.route.failed(cause)) {
            next();
        }
        else {
            this.result.completeExceptionally(cause);
        }
    }

    private void recover() {
        CompletionStage<?> stage;
        try {
            stage = stage(this.invocation.recover(this.route));
        }
        catch (Throwable ex) {
            this.result.completeExceptionally(ex);
            return;
        }
        await(stage, (value, failure) -> {
            if (failure == null) {
                this.result.complete(value);
            }
            else {
                this.result.completeExceptionally(unwrap(failure));
            }
        });
    }

    private void await(CompletionStage<?> stage, Completion completion) {
        this.inFlight = stage;
        if (this.result.isCancelled()) {
            // cancelled before the stage was in flight: the cancellation did not see it
            cancelInFlight();
            return;
        }
        stage.whenComplete(completion::completed);
    }

    private CompletionStage<?> stage(@Nullable Object returned) {
        return (CompletionStage<?>) this.invocation.nonNull(returned);
    }

    private void cancelInFlight() {
        CompletionStage<?> stage = this.inFlight;
        if (stage == null) {
            return;
        }
        try {
            stage.toCompletableFuture().cancel(true);
        }
        catch (UnsupportedOperationException ex) {
            // a stage that cannot be seen as a future cannot be cancelled: it completes
            // on its own, and its outcome is ignored
        }
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure.getCause();
        return (failure instanceof CompletionException && cause != null) ? cause : failure;
    }

    /**
     * What to do when a stage completed.
     */
    @FunctionalInterface
    private interface Completion {

        void completed(@Nullable Object value, @Nullable Throwable failure);

    }

}
