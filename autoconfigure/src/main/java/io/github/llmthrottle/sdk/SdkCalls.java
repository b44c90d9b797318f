package io.github.llmthrottle.sdk;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import io.github.llmthrottle.ThrottleContext;

/**
 * What the SDK adapters share whatever the SDK's types: an asynchronous request run on an
 * executor with the caller's {@code @Throttled} context, and how a request asks for a
 * stream of events.
 */
final class SdkCalls {

    private static final String EVENT_STREAM = "text/event-stream";

    private SdkCalls() {
    }

    /**
     * Runs a blocking request on the executor, with the calling thread's
     * {@link ThrottleContext}: the wait for admission and between retries never blocks
     * the caller.
     * @param <T> the response type
     * @param executor where the request waits and is sent
     * @param request the blocking request
     * @return its response, or its failure as the future's
     */
    static <T> CompletableFuture<T> async(Executor executor, Supplier<T> request) {
        ThrottleContext context = ThrottleContext.current();
        return CompletableFuture.supplyAsync(() -> {
            try (ThrottleContext.Scope scope = (context != null) ? ThrottleContext.open(context) : () -> {
            }) {
                return request.get();
            }
        }, executor).handle((response, failure) -> {
            if (failure == null) {
                return response;
            }
            throw (failure instanceof CompletionException completion) ? completion : new CompletionException(failure);
        });
    }

    /**
     * Whether a request's {@code Accept} header values ask for a stream of events.
     * @param accepts the values
     * @return whether one of them is {@code text/event-stream}
     */
    static boolean acceptsEventStream(List<String> accepts) {
        return accepts.stream().anyMatch((accept) -> accept.contains(EVENT_STREAM));
    }

}
