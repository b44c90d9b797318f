package io.github.llmthrottle.annotation;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.routing.ModelRouter;
import org.jspecify.annotations.Nullable;

import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;

/**
 * Everything about one {@code @Throttled} method that can be worked out once, at startup:
 * its router over {@code [model, fallback...]}, priority, parsed max-wait, parsed tenant
 * expression and resolved fallback method. The hot path only evaluates the tenant
 * expression.
 *
 * @param description the method as messages name it, e.g.
 * {@code com.example.Answers.answer(Request)}
 * @param method the annotated method
 * @param router routes invocations over the model chain
 * @param priority the priority of the invocation's calls
 * @param tenant the tenant expression, or {@code null} for none
 * @param maxWait the longest wait for admission, or {@code null} for
 * {@code llm.throttle.queue.max-wait}
 * @param fallbackMethod the method called when every model failed, or {@code null}
 * @param fallbackTakesThrowable whether the fallback method takes the failure as its last
 * argument
 * @param async the method's asynchronous return type, or {@code null} when it returns its
 * result
 */
record ThrottledMethod(String description, Method method, ModelRouter router, Priority priority,
        @Nullable Expression tenant, @Nullable Duration maxWait, @Nullable Method fallbackMethod,
        boolean fallbackTakesThrowable, @Nullable AsyncReturnType async) {

    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

    /**
     * The tenant of one invocation.
     * @param target the bean (the expression's root object)
     * @param arguments the invocation's arguments ({@code #name}, {@code #p0},
     * {@code #a0})
     * @return the tenant, or {@code null} when there is no expression or it gives null or
     * blank
     */
    @Nullable String tenant(@Nullable Object target, @Nullable Object[] arguments) {
        if (this.tenant == null) {
            return null;
        }
        try {
            Object value = this.tenant
                .getValue(new MethodBasedEvaluationContext(target, this.method, arguments, PARAMETER_NAMES));
            String tenant = (value != null) ? value.toString() : null;
            return (tenant != null && !tenant.isBlank()) ? tenant : null;
        }
        catch (EvaluationException ex) {
            throw new IllegalStateException(
                    "Cannot evaluate the tenant expression '" + this.tenant.getExpressionString() + "' of @Throttled "
                            + this.description + ": " + ex.getMessage(),
                    ex);
        }
    }

    /**
     * Calls the fallback method after every model failed.
     * @param target the bean
     * @param arguments the invocation's arguments
     * @param failure the last throttling failure
     * @return what the fallback method returned
     * @throws Throwable what the fallback method threw
     */
    @Nullable Object fallback(@Nullable Object target, @Nullable Object[] arguments, LlmThrottleException failure)
            throws Throwable {
        Method fallback = this.fallbackMethod;
        if (fallback == null) {
            throw failure;
        }
        Object[] fallbackArguments = arguments;
        if (this.fallbackTakesThrowable) {
            fallbackArguments = new Object[arguments.length + 1];
            System.arraycopy(arguments, 0, fallbackArguments, 0, arguments.length);
            fallbackArguments[arguments.length] = failure;
        }
        try {
            return fallback.invoke(target, fallbackArguments);
        }
        catch (InvocationTargetException ex) {
            throw ex.getTargetException();
        }
    }

    @Override
    public String toString() {
        return "ThrottledMethod[" + this.description + "]";
    }

}
