package io.github.llmthrottle.client;

import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.observation.LlmThrottleObservations;
import io.github.llmthrottle.provider.EndpointClass;
import io.github.llmthrottle.retry.RetryEngine;
import org.jspecify.annotations.Nullable;

/**
 * The first admission of a model call, waited for ahead of the call as a queue entry
 * ({@link ThrottledClient#admitAhead}), before the adapter has a thread to run the call
 * on: the call then goes through {@link #exchange}, whose first attempt uses it instead
 * of waiting again (retries wait as usual). An admission the call does not use (it never
 * runs, or its request turned out to be another) is given back by {@link #release}.
 * <p>
 * A refusal at admission (queue full, timeout) is held as well, and is what the first
 * attempt fails with, as a call that waited itself would.
 */
public final class HeldAdmission {

    private final ThrottledClient client;

    private final LlmThrottleObservations observations;

    private final CallContext context;

    private final @Nullable AttemptTokens tokens;

    private final @Nullable LlmThrottleException refusal;

    /** When the admission joined the queue, on the client's clock. */
    final long queuedNanos;

    private final AtomicBoolean used = new AtomicBoolean();

    private HeldAdmission(ThrottledClient client, LlmThrottleObservations observations, CallContext context,
            @Nullable AttemptTokens tokens, @Nullable LlmThrottleException refusal, long queuedNanos) {
        this.client = client;
        this.observations = observations;
        this.context = context;
        this.tokens = tokens;
        this.refusal = refusal;
        this.queuedNanos = queuedNanos;
    }

    /**
     * Waits for the first admission of {@code request} without holding a thread.
     * @return the admission (or refusal) held for the call, or {@code null} when the call
     * is to wait for itself: not a model call, a model served by deployments, a context
     * window exceeded, an open circuit (each then fails or is routed as usual);
     * cancelling it leaves the queue, and an admission granted after all is given back
     */
    static CompletableFuture<@Nullable HeldAdmission> start(ThrottledClient client, ClientPipeline pipeline,
            Function<String, ThrottledModel> models, LlmThrottleObservations observations, ProviderRequest request) {
        if (client.endpointClass(request.uri()) != EndpointClass.MODEL_CALL) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<@Nullable HeldAdmission> result = new CompletableFuture<>();
        AtomicReference<@Nullable CompletableFuture<?>> step = new AtomicReference<>();
        CompletableFuture<CallContext> counted = CallContext.ofAsync(pipeline, models, request);
        step.set(counted);
        counted.whenComplete((context, failure) -> {
            if (failure != null || !admitsAhead(context)) {
                result.complete(null);
                return;
            }
            long queued = pipeline.time().nanoTime();
            AttemptTokens.admitAsync(context, context.model(), (admission) -> {
                step.set(admission);
                if (result.isCancelled()) {
                    admission.cancel(false);
                }
            }).whenComplete((tokens, refused) -> {
                HeldAdmission held = null;
                if (refused == null) {
                    held = new HeldAdmission(client, observations, context, tokens, null, queued);
                }
                else if (RetryEngine.causeOf(refused) instanceof LlmThrottleException ex) {
                    held = new HeldAdmission(client, observations, context, null, ex, queued);
                }
                if (!result.complete(held) && held != null) {
                    held.release();
                }
            });
        });
        result.whenComplete((held, failure) -> {
            CompletableFuture<?> waiting = step.get();
            if (result.isCancelled() && waiting != null) {
                waiting.cancel(false);
            }
        });
        return result;
    }

    /**
     * Runs {@code call} on {@code executor} once {@code admitted} completes, with the
     * admission held, or {@code null} when the call is to wait for itself (none was held,
     * or the wait ahead failed); a wait that was cancelled runs nothing. The admission is
     * given back once {@code call} returns unless an attempt took it, and at once when
     * {@code executor} refuses the task, which {@code rejected} is then told.
     * @param admitted the wait ahead ({@link ThrottledClient#admitAhead})
     * @param executor where the call runs once admitted
     * @param call the call, sent through {@link #exchange} when it is given an admission
     * @param rejected told when {@code executor} refuses the task
     */
    public static void runWhenAdmitted(CompletableFuture<@Nullable HeldAdmission> admitted, Executor executor,
            Consumer<@Nullable HeldAdmission> call, Consumer<RuntimeException> rejected) {
        admitted.whenComplete((held, failure) -> {
            if (admitted.isCancelled()) {
                return;
            }
            try {
                executor.execute(() -> {
                    try {
                        call.accept(held);
                    }
                    finally {
                        if (held != null) {
                            held.release();
                        }
                    }
                });
            }
            catch (RuntimeException ex) {
                if (held != null) {
                    held.release();
                }
                rejected.accept(ex);
            }
        });
    }

    private static boolean admitsAhead(CallContext context) {
        try {
            context.checkContextWindow();
        }
        catch (RuntimeException ex) {
            return false;
        }
        return context.model().deployments.isEmpty() && context.model().circuit.isCallPermitted();
    }

    /**
     * Sends {@code request} through the call pipeline as {@link ThrottledClient#exchange}
     * does, its first attempt admitted by this admission when {@code request} is the one
     * it was held for (the same method, URI, body, stream and caller); otherwise this
     * admission is given back and the call waits for its own.
     * @param <R> the adapter's response type
     * @param request the request
     * @param exchange sends the request once per attempt
     * @return the final response
     * @throws IOException an I/O error that is not retried, or an interrupt while waiting
     * @throws LlmThrottleException when the call is refused or retries are exhausted
     */
    public <R extends ProviderResponse> ThrottledResponse<R> exchange(ProviderRequest request,
            ProviderExchange<R> exchange) throws IOException {
        if (!isFor(request)) {
            release();
            return this.client.exchange(request, exchange);
        }
        try {
            return new ThrottledCall<>(this.context, this.observations, exchange, this).run();
        }
        finally {
            release();
        }
    }

    private boolean isFor(ProviderRequest request) {
        ProviderRequest held = this.context.request();
        return !this.used.get() && held.method().equals(request.method()) && held.uri().equals(request.uri())
                && Arrays.equals(held.body(), request.body()) && held.streaming() == request.streaming()
                && held.caller().equals(request.caller());
    }

    /**
     * Hands this admission to the first attempt of its call, on {@code target}.
     * @return whether it is the attempt's to use
     */
    boolean takeFor(ThrottledModel target) {
        return target == this.context.model() && this.used.compareAndSet(false, true);
    }

    /**
     * The held tokens, for the attempt that took this admission.
     * @throws LlmThrottleException the refusal held instead
     */
    AttemptTokens tokens() {
        if (this.refusal != null) {
            throw this.refusal;
        }
        return Objects.requireNonNull(this.tokens);
    }

    /** Gives back the admission an attempt took and could not use. */
    void releaseTaken() {
        if (this.tokens != null) {
            this.tokens.permit().release(Permit.Outcome.IGNORED);
        }
    }

    /**
     * Gives the admission back unless an attempt took it: its permit, reservations and
     * queue slot come back. Further calls do nothing.
     */
    public void release() {
        if (this.used.compareAndSet(false, true) && this.tokens != null) {
            this.tokens.permit().release(Permit.Outcome.IGNORED);
        }
    }

    /**
     * The caller the admission was waited for.
     * @return the caller
     */
    public Caller getCaller() {
        return this.context.request().caller();
    }

    /**
     * Whether the call was refused at admission.
     * @return the refusal, or {@code null} when it was admitted
     */
    public @Nullable LlmThrottleException getRefusal() {
        return this.refusal;
    }

}
