package io.github.llmthrottle.okhttp;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.ThrottleContext;
import org.jspecify.annotations.Nullable;

/**
 * The priority and tenant a caller asks for, before it is known which configured client
 * its request will reach (a Spring AI {@code ChatClient} call's advisor parameters): made
 * current on the calling thread, they are turned by {@link OkHttpThrottlingInterceptor}
 * into a {@link ThrottleContext} of the client the request resolves to. A thread-local,
 * so it reaches calls made on the caller's own thread only (Spring AI's {@code call()},
 * not {@code stream()}).
 *
 * @param priority the priority of the caller's calls
 * @param tenant the tenant, or {@code null} for the {@code TenantResolver}'s
 */
public record CallerThrottleParameters(Priority priority, @Nullable String tenant) {

    private static final ThreadLocal<@Nullable CallerThrottleParameters> CURRENT = new ThreadLocal<>();

    /**
     * The parameters current on this thread.
     * @return the parameters, or {@code null} when none are
     */
    public static @Nullable CallerThrottleParameters current() {
        return CURRENT.get();
    }

    /**
     * Makes these parameters current on this thread until the returned scope is closed,
     * when the previous ones are restored.
     * @return the scope to close
     */
    public ThrottleContext.Scope open() {
        CallerThrottleParameters previous = CURRENT.get();
        CURRENT.set(this);
        return () -> {
            if (previous != null) {
                CURRENT.set(previous);
            }
            else {
                CURRENT.remove();
            }
        };
    }

}
