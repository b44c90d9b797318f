package io.github.llmthrottle.annotation;

import java.lang.reflect.Method;

import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.routing.ModelRouter.Invocation;
import io.github.llmthrottle.routing.ModelRouter.Recovery;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.ReactiveAdapter;
import org.springframework.util.ClassUtils;

/**
 * Routes each invocation of a {@code @Throttled} method over its models with the method's
 * {@link io.github.llmthrottle.routing.ModelRouter}: the method runs once per model
 * tried, each time with a {@link io.github.llmthrottle.ThrottleContext} naming that
 * model, and the fallback method (if any) runs when every model failed for a throttling
 * reason.
 */
final class ThrottledInterceptor implements MethodInterceptor {

    private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Flux",
            ThrottledInterceptor.class.getClassLoader());

    private final ThrottledMethods methods;

    ThrottledInterceptor(ThrottledMethods methods) {
        this.methods = methods;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Method method = invocation.getMethod();
        Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : method.getDeclaringClass();
        ThrottledMethod throttled = this.methods.get(method, targetClass);
        if (throttled == null) {
            return invocation.proceed();
        }
        if (!(invocation instanceof ProxyMethodInvocation proxyInvocation)) {
            throw new IllegalStateException("@Throttled " + throttled.description()
                    + " needs a Spring AOP proxy invocation to try more than one model; found "
                    + invocation.getClass().getName());
        }
        @Nullable Object[] arguments = invocation.getArguments();
        String tenant = throttled.tenant(target, arguments);
        AsyncReturnType async = throttled.async();
        if (async != null) {
            AsyncInvocation asyncInvocation = new AsyncInvocation(throttled, proxyInvocation, target, arguments,
                    tenant);
            ReactiveAdapter adapter = async.adapter();
            return (adapter != null) ? ReactiveRouting.route(asyncInvocation, adapter)
                    : FutureRouting.route(asyncInvocation);
        }
        // the method and its fallback may return null, which Recovery<@Nullable Object>
        // and
        // Invocation<@Nullable Object> allow; NullAway outside JSpecify mode (Java 17's
        // javac) ignores the type argument's @Nullable and reads their T as non-null
        @SuppressWarnings("NullAway")
        Recovery<@Nullable Object> recovery = (throttled.fallbackMethod() != null)
                ? (failure) -> throttled.fallback(target, arguments, failure) : null;
        @SuppressWarnings("NullAway")
        Invocation<@Nullable Object> proceed = (context) -> withContext(proceed(proxyInvocation, context), context);
        return throttled.router().route(throttled.priority(), tenant, throttled.maxWait(), proceed, recovery);
    }

    /**
     * Runs the method once with {@code context} current: the method, and every call it
     * makes on this thread, reads it there ({@code ThrottleContext.currentModel()}, the
     * adapters at their edge).
     * @param invocation the proxy's invocation of the method
     * @param context the context of the candidate it runs for
     * @return what the method returned
     * @throws Throwable what the method threw
     */
    static @Nullable Object proceed(ProxyMethodInvocation invocation, ThrottleContext context) throws Throwable {
        try (ThrottleContext.Scope scope = ThrottleContext.open(context)) {
            return invocation.invocableClone().proceed();
        }
    }

    /**
     * A Reactor result of a method not declared to return one (declared as
     * {@code Object}, say) carries the invocation's context: its HTTP calls happen when
     * it is subscribed, after the invocation (and its thread-local context) ended. A
     * method declared to return a Mono or a Flux is routed by {@link ReactiveRouting}.
     */
    private static @Nullable Object withContext(@Nullable Object result, ThrottleContext context) {
        return REACTOR_PRESENT ? ReactiveThrottleContext.attach(result, context) : result;
    }

}
