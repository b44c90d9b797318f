package io.github.llmthrottle.annotation;

import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import io.github.llmthrottle.InvalidThrottleConfigurationException;
import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * The asynchronous return type of a {@code @Throttled} method, worked out at startup from
 * its declared return type: a {@link CompletableFuture} or {@link CompletionStage}
 * ({@link #future()}), or a reactive type that Spring's
 * {@link ReactiveAdapterRegistry#getSharedInstance() shared adapter registry} adapts
 * (Reactor's {@code Mono} and {@code Flux}, and RxJava and the like when registered),
 * routed through Reactor. Any other asynchronous type (a {@link Future} that is not a
 * {@code CompletableFuture}, an unregistered reactive type, a Kotlin {@code suspend}
 * function) is refused, since its calls would run after the method returned, outside the
 * routing.
 *
 * @param future whether the method returns a {@code CompletableFuture} or a
 * {@code CompletionStage}
 * @param adapter the adapter of the method's reactive type, or {@code null} for a future
 */
record AsyncReturnType(boolean future, @Nullable ReactiveAdapter adapter) {

    private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Flux",
            AsyncReturnType.class.getClassLoader());

    private static final Set<String> PUBLISHERS = Set.of("org.reactivestreams.Publisher",
            "java.util.concurrent.Flow$Publisher", "kotlinx.coroutines.flow.Flow");

    private static final List<String> ASYNC_PACKAGES = List.of("io.reactivex.", "rx.", "io.smallrye.mutiny.",
            "kotlinx.coroutines.", "reactor.core.", "akka.stream.", "org.apache.pekko.stream.");

    private static final String CONTINUATION = "kotlin.coroutines.Continuation";

    private static final AsyncReturnType FUTURE = new AsyncReturnType(true, null);

    /**
     * The asynchronous return type of a method.
     * @param method the {@code @Throttled} method
     * @param description the method as messages name it
     * @return the type, or {@code null} when the method returns its result (or nothing)
     * @throws InvalidThrottleConfigurationException when the method returns an
     * asynchronous type that cannot be routed
     */
    static @Nullable AsyncReturnType of(Method method, String description) {
        Class<?> type = method.getReturnType();
        if (isSuspending(method)) {
            throw unsupported(description, "is a Kotlin suspend function",
                    "Make it a regular function returning a Mono, a Flux or a CompletableFuture (kotlinx-coroutines-"
                            + "reactor's mono { } builds one), or call it from a @Throttled blocking method.");
        }
        if (type == CompletableFuture.class || type == CompletionStage.class) {
            return FUTURE;
        }
        if (Future.class.isAssignableFrom(type) || CompletionStage.class.isAssignableFrom(type)) {
            throw unsupported(description,
                    "returns " + type.getName()
                            + ": only CompletableFuture and CompletionStage themselves can be routed (a new future is "
                            + "returned, chained on the method's one for each model tried)",
                    action());
        }
        ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(type);
        if (adapter != null && type.isAssignableFrom(adapter.getReactiveType())) {
            if (!REACTOR_PRESENT) {
                throw unsupported(description,
                        "returns " + type.getName() + ", which is routed with Project Reactor, not on the classpath",
                        "Add io.projectreactor:reactor-core, or " + action());
            }
            return new AsyncReturnType(false, adapter);
        }
        if (adapter != null) {
            throw unsupported(description, "returns " + type.getName() + ", a subtype of "
                    + adapter.getReactiveType().getName() + ", which can be routed only as that type itself", action());
        }
        if (isAsync(type)) {
            throw unsupported(description, "returns " + type.getName() + ", an asynchronous type that "
                    + "Spring's ReactiveAdapterRegistry does not adapt to a Mono or a Flux", action());
        }
        return null;
    }

    /**
     * Whether the method is a Kotlin {@code suspend} function: Kotlin compiles one to a
     * method taking a {@code Continuation} last.
     */
    private static boolean isSuspending(Method method) {
        if (KotlinDetector.isKotlinPresent() && KotlinDetector.isSuspendingFunction(method)) {
            return true;
        }
        Class<?>[] parameters = method.getParameterTypes();
        return parameters.length > 0 && parameters[parameters.length - 1].getName().equals(CONTINUATION);
    }

    private static boolean isAsync(Class<?> type) {
        Deque<Class<?>> pending = new ArrayDeque<>();
        Set<Class<?>> seen = new HashSet<>();
        pending.add(type);
        while (!pending.isEmpty()) {
            Class<?> current = pending.poll();
            if (!seen.add(current)) {
                continue;
            }
            String name = current.getName();
            if (PUBLISHERS.contains(name) || ASYNC_PACKAGES.stream().anyMatch(name::startsWith)) {
                return true;
            }
            pending.addAll(List.of(current.getInterfaces()));
            Class<?> superclass = current.getSuperclass();
            if (superclass != null) {
                pending.add(superclass);
            }
        }
        return false;
    }

    private static String action() {
        return "Return a Mono, a Flux, a CompletableFuture or a CompletionStage, or return the result itself and "
                + "run the method asynchronously from the caller (for example on a virtual thread).";
    }

    private static InvalidThrottleConfigurationException unsupported(String description, String reason, String action) {
        return new InvalidThrottleConfigurationException(description, null, "@Throttled cannot route a method that "
                + reason + ": its calls would run after it returned, outside its routing and ThrottleContext", action);
    }

}
