package io.github.llmthrottle;

import io.micrometer.context.ThreadLocalAccessor;
import org.jspecify.annotations.Nullable;

/**
 * Lets Micrometer's context propagation carry the {@link ThrottleContext} (priority,
 * tenant, routed model, max-wait of a {@link Throttled} invocation) to other threads:
 * {@code ContextSnapshot}s, context-aware executors, Boot's {@code @Async} with context
 * propagation, Reactor with automatic context propagation. Registered through
 * {@code META-INF/services} when {@code io.micrometer:context-propagation} is on the
 * classpath; nothing loads it otherwise.
 */
public final class ThrottleContextAccessor implements ThreadLocalAccessor<ThrottleContext> {

    /** The key of the context in a {@code ContextSnapshot}. */
    public static final String KEY = "io.github.llmthrottle.ThrottleContext";

    @Override
    public Object key() {
        return KEY;
    }

    @Override
    public @Nullable ThrottleContext getValue() {
        return ThrottleContext.current();
    }

    @Override
    public void setValue(ThrottleContext value) {
        ThrottleContext.set(value);
    }

    /** Clears the context (the default would throw in context-propagation 1.2). */
    @Override
    public void setValue() {
        ThrottleContext.set(null);
    }

}
