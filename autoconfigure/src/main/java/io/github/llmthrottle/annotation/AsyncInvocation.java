package io.github.llmthrottle.annotation;

import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.routing.Route;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * One invocation of a {@code @Throttled} method that returns a future or a reactive type,
 * as its routing ({@link FutureRouting}, {@link ReactiveRouting}) sees it: the method can
 * be run again for each candidate model, on whichever thread learnt that the previous one
 * failed, and the fallback method called when none is left.
 */
final class AsyncInvocation {

    private final ThrottledMethod method;

    private final ProxyMethodInvocation invocation;

    private final @Nullable Object target;

    private final @Nullable Object[] arguments;

    private final @Nullable String tenant;

    AsyncInvocation(ThrottledMethod method, ProxyMethodInvocation invocation, @Nullable Object target,
            @Nullable Object[] arguments, @Nullable String tenant) {
        this.method = method;
        this.invocation = invocation;
        this.target = target;
        this.arguments = arguments;
        this.tenant = tenant;
    }

    /**
     * A new route over the method's candidates, for one run of the invocation.
     * @return the route
     */
    Route start() {
        return this.method.router().start(this.method.priority(), this.tenant, this.method.maxWait());
    }

    /**
     * Runs the method for one candidate, with {@code context} current on this thread
     * while it runs.
     * @param context the candidate's context
     * @return what the method returned
     * @throws Throwable what the method threw
     */
    @Nullable Object invoke(ThrottleContext context) throws Throwable {
        return ThrottledInterceptor.proceed(this.invocation, context);
    }

    /**
     * What to return when no candidate is left: the fallback method's result.
     * @param route the route, past its last candidate
     * @return what the fallback method returned
     * @throws Throwable what the fallback method threw, or the route's last exception
     * when there is no fallback method
     */
    @Nullable Object recover(Route route) throws Throwable {
        if (this.method.fallbackMethod() == null) {
            throw route.thrown();
        }
        return this.method.fallback(this.target, this.arguments, route.failure());
    }

    /**
     * Refuses a {@code null} in place of the future or publisher the method (or its
     * fallback method) must return.
     * @param result what it returned
     * @return the result
     */
    Object nonNull(@Nullable Object result) {
        if (result == null) {
            throw new IllegalStateException("@Throttled " + this.method.description() + " returned null instead of a "
                    + this.method.method().getReturnType().getSimpleName());
        }
        return result;
    }

}
