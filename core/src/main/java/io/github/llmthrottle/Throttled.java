package io.github.llmthrottle;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method whose body calls an LLM through a throttled {@code RestClient}. Before
 * the method runs, the call is routed to the first model of {@code [model, fallback...]}
 * that can be admitted within {@link #maxWait()}; when the call then fails for a
 * throttling reason the next model is tried, and when every model failed
 * {@link #fallbackMethod()} is called. Inside the method
 * {@link ThrottleContext#currentModel()} names the model the invocation was routed to.
 * <p>
 * Throttling failures (retries exhausted, a server wait above max-retry-after, queue
 * full, admission timeout, tenant quota, open circuit) move on to the next model; 4xx and
 * quota errors and every other exception propagate at once, unless {@link #fallbackOn()}
 * lists the provider's refusal. {@link #routing()} decides which model is tried first.
 * The method is intercepted by a Spring proxy: it must be a non-final, non-static,
 * non-private method of a non-final bean class, called from another bean, and must not
 * return a {@code CompletableFuture} or another asynchronous type. Misuses, and unknown
 * clients or models, stop the application at startup.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Throttled {

    /**
     * Name of the client under {@code llm.throttle.clients}; may be omitted when exactly
     * one client is configured.
     * @return the client name
     */
    String client() default "";

    /**
     * The preferred model; defaults to the client's {@code default-model}.
     * @return the model name
     */
    String model() default "";

    /**
     * Models to fall back to, in order; defaults to the model's configured fallback
     * chain. An entry names a model of {@link #client()}, or a model of another
     * configured client as {@code CLIENT:MODEL} (for example {@code openai:gpt-4o-mini});
     * inside the method {@code ThrottleContext.current().getClient()} then names the
     * client the invocation was routed to.
     * @return the fallback models
     */
    String[] fallback() default {};

    /**
     * How the invocation picks the model it tries first: in order (the default), split by
     * {@link #weights()}, or the cheapest.
     * @return the routing strategy
     */
    Routing routing() default Routing.ORDERED;

    /**
     * With {@link Routing#WEIGHTED}, one weight per candidate of
     * {@code [model, fallback...]} (for example {@code {70, 30}}): the share of
     * invocations that try that model first. Each at least 0, not all 0; ignored by the
     * other strategies.
     * @return the weights
     */
    int[] weights() default {};

    /**
     * Provider refusals that also route the invocation to the next model (by default they
     * reach the caller): a request too long for the model's context, refused for its
     * content policy, or refused for the organisation's quota or billing.
     * @return the refusals to route around
     */
    FallbackOn[] fallbackOn() default {};

    /**
     * Priority with which the calls of this invocation wait for admission.
     * @return the priority
     */
    Priority priority() default Priority.NORMAL;

    /**
     * SpEL expression over the method's parameters that gives the tenant (for example
     * {@code #request.tenantId}); empty for no tenant.
     * @return the tenant expression
     */
    String tenant() default "";

    /**
     * Longest time a call may wait for admission, as a duration string ({@code 5s},
     * {@code 500ms}, {@code PT5S}); empty to use {@code llm.throttle.queue.max-wait}. It
     * also caps the server waits ({@code Retry-After}) a call of this invocation sleeps
     * before a retry (below {@code llm.throttle.retry.max-retry-after}): a longer one
     * fails the call with {@link RetryAfterTooLongException}, which routes it to the next
     * model.
     * @return the maximum wait
     */
    String maxWait() default "";

    /**
     * Name of a method on the same bean, with the same parameters (optionally followed by
     * a {@link Throwable}) and the same return type, called when every model failed.
     * @return the fallback method name
     */
    String fallbackMethod() default "";

}
