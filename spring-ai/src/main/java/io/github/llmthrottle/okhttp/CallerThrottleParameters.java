package io.github.llmthrottle.okhttp;

import java.time.Duration;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.client.Caller;
import org.jspecify.annotations.Nullable;

/**
 * The priority, tenant and admission wait a caller asks for, before it is known which
 * configured client its request will reach (a Spring AI {@code ChatClient} call's advisor
 * parameters), or on a thread where the caller's {@link ThrottleContext} is not current
 * (a {@code stream()} inside a {@code @Throttled} method): turned by
 * {@link OkHttpThrottlingInterceptor} into the {@link Caller} of the request, for the
 * client it resolves to. They reach the interceptor as carrier headers, or as a
 * thread-local on the caller's own thread (Spring AI's {@code call()}).
 *
 * @param priority the priority of the caller's calls
 * @param tenant the tenant, or {@code null} for the {@code TenantResolver}'s
 * @param maxWait the longest a call may wait for admission, or {@code null} for the
 * configured {@code llm.throttle.queue.max-wait}
 * @param client the configured client these apply to (a {@code @Throttled} invocation's),
 * or {@code null} for whichever a request resolves to
 */
public record CallerThrottleParameters(Priority priority, @Nullable String tenant, @Nullable Duration maxWait,
        @Nullable String client) {

    private static final ThreadLocal<@Nullable CallerThrottleParameters> CURRENT = new ThreadLocal<>();

    /**
     * Parameters for whichever client a request resolves to, with the configured
     * max-wait.
     * @param priority the priority
     * @param tenant the tenant, or {@code null}
     */
    public CallerThrottleParameters(Priority priority, @Nullable String tenant) {
        this(priority, tenant, null, null);
    }

    /**
     * The parameters of a {@code @Throttled} invocation's context.
     * @param context the invocation's context
     * @return the parameters, for the invocation's client only
     */
    public static CallerThrottleParameters of(ThrottleContext context) {
        return new CallerThrottleParameters(context.getPriority(), context.getTenant(), context.getMaxWait(),
                context.getClient());
    }

    /**
     * The parameters current on this thread.
     * @return the parameters, or {@code null} when none are
     */
    public static @Nullable CallerThrottleParameters current() {
        return CURRENT.get();
    }

    /**
     * Whether these parameters apply to a request of the client named {@code name}.
     * @param name the client a request resolved to
     * @return {@code true} when they name no client or this one
     */
    public boolean appliesTo(String name) {
        return this.client == null || this.client.equals(name);
    }

    /**
     * The caller these parameters stand for, in a request of a client they apply to: the
     * model is the request body's, or the client's default.
     * @return the caller
     */
    public Caller caller() {
        return new Caller(this.priority, this.tenant, this.maxWait, null);
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
