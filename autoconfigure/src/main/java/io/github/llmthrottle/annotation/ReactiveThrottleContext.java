package io.github.llmthrottle.annotation;

import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.ThrottleContextAccessor;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Carries a {@code @Throttled} invocation's context into what the method returns when it
 * is a Reactor {@link Flux} or {@link Mono}: such a method returns before its HTTP call
 * is made (a Spring AI {@code ChatClient} stream, subscribed later on another thread), so
 * the invocation's thread-local context is put in the publisher's Reactor context, under
 * {@link ThrottleContextAccessor#KEY}, where the stream's advisor reads it (and
 * Micrometer's automatic context propagation restores it as the thread-local). Loaded
 * only when Reactor is on the classpath.
 */
final class ReactiveThrottleContext {

    private ReactiveThrottleContext() {
    }

    /**
     * The method's result, with the context in its Reactor context when it is a
     * {@link Flux} or a {@link Mono}.
     * @param result what the method returned
     * @param context the invocation's context
     * @return the result to hand back
     */
    static @Nullable Object attach(@Nullable Object result, ThrottleContext context) {
        if (result instanceof Flux<?> flux) {
            return flux.contextWrite((reactive) -> reactive.put(ThrottleContextAccessor.KEY, context));
        }
        if (result instanceof Mono<?> mono) {
            return mono.contextWrite((reactive) -> reactive.put(ThrottleContextAccessor.KEY, context));
        }
        return result;
    }

}
