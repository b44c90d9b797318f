package io.github.llmthrottle.annotation;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.ThrottleContextAccessor;
import io.github.llmthrottle.routing.Route;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import org.springframework.core.ReactiveAdapter;

/**
 * Routes an invocation of a {@code @Throttled} method returning a {@link Mono}, a
 * {@link Flux} or another type Spring's {@code ReactiveAdapterRegistry} adapts, the way
 * Framework's {@code @Retryable} handles reactive methods: the method runs at once for
 * the first candidate model, and what it returned is wrapped. When that fails with a
 * throttling failure (for a multi-value type, before its first element: after one, the
 * subscriber has seen part of an answer, and errors pass through unchanged), the method
 * runs again for the next candidate, on the thread that signalled the error; when none is
 * left, the fallback method's publisher takes over.
 * <p>
 * Each candidate's publisher carries the invocation's {@link ThrottleContext} in its
 * Reactor context under {@link ThrottleContextAccessor#KEY} (read it with
 * {@code Mono.deferContextual}; Micrometer's automatic context propagation restores it as
 * the thread-local), and the context is current on the thread that runs the method. The
 * routing starts over, running the method again, for each later subscription; a cancelled
 * subscription tries no other candidate. Loaded only when Reactor is on the classpath.
 */
final class ReactiveRouting {

    private ReactiveRouting() {
    }

    /**
     * Routes an invocation, running the method for its first candidate before returning.
     * @param invocation the invocation
     * @param adapter the adapter of the method's return type
     * @return what the caller gets, of the method's return type
     */
    static Object route(AsyncInvocation invocation, ReactiveAdapter adapter) {
        Publisher<Object> first = attempt(invocation, invocation.start(), adapter);
        AtomicBoolean taken = new AtomicBoolean();
        Supplier<Publisher<Object>> subscribed = () -> taken.compareAndSet(false, true) ? first
                : attempt(invocation, invocation.start(), adapter);
        Publisher<Object> routed = adapter.isMultiValue() ? Flux.defer(subscribed)
                : Mono.defer(() -> Mono.from(subscribed.get()));
        return adapter.fromPublisher(routed);
    }

    /**
     * The publisher of the route's next candidate that is not skipped (the method runs
     * now), moving on to the one after when it fails with a throttling failure.
     */
    private static Publisher<Object> attempt(AsyncInvocation invocation, Route route, ReactiveAdapter adapter) {
        for (ThrottleContext context = route.next(); context != null; context = route.next()) {
            Publisher<Object> publisher;
            try {
                publisher = adapter.<Object>toPublisher(invocation.nonNull(invocation.invoke(context)));
            }
            catch (Throwable ex) {
                if (route.failed(ex)) {
                    continue;
                }
                return error(adapter, ex);
            }
            Context withContext = Context.of(ThrottleContextAccessor.KEY, context);
            if (adapter.isMultiValue()) {
                AtomicBoolean emitted = new AtomicBoolean();
                return Flux.from(publisher)
                    .contextWrite(withContext)
                    .doOnNext((element) -> emitted.set(true))
                    .onErrorResume((ex) -> !emitted.get() && route.failed(ex),
                            (ex) -> attempt(invocation, route, adapter));
            }
            return Mono.from(publisher)
                .contextWrite(withContext)
                .onErrorResume(route::failed, (ex) -> Mono.from(attempt(invocation, route, adapter)));
        }
        try {
            return adapter.<Object>toPublisher(invocation.nonNull(invocation.recover(route)));
        }
        catch (Throwable ex) {
            return error(adapter, ex);
        }
    }

    private static Publisher<Object> error(ReactiveAdapter adapter, Throwable ex) {
        return adapter.isMultiValue() ? Flux.error(ex) : Mono.error(ex);
    }

}
