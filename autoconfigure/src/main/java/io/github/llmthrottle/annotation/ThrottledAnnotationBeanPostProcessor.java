package io.github.llmthrottle.annotation;

import java.util.function.Supplier;

import io.github.llmthrottle.Throttled;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.routing.CostEstimator;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Proxies every bean with {@link Throttled} methods (or a {@code @Throttled} class) with
 * an advisor that routes their invocations, in the style of Spring Framework's
 * {@code @Retryable} and {@code @Async} support: no AspectJ needed, and an existing proxy
 * just gets one more advisor, placed before the others so that routing wraps
 * transactions, caching and the like. Class-based (CGLIB) proxies are used, so the
 * annotation works on classes without interfaces.
 * <p>
 * Before a bean is proxied, every {@code @Throttled} method of its class is checked (see
 * {@link ThrottledMethods}); a misuse stops the application at startup.
 */
public class ThrottledAnnotationBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

    private final ThrottledMethods methods;

    /**
     * Creates the post-processor.
     * @param registry the throttled clients, looked up when the first annotated bean
     * appears
     */
    public ThrottledAnnotationBeanPostProcessor(Supplier<LlmThrottleRegistry> registry) {
        this(registry, () -> null);
    }

    /**
     * Creates the post-processor.
     * @param registry the throttled clients, looked up when the first annotated bean
     * appears
     * @param costs the cost of a request to a model, for {@code Routing.CHEAPEST}; gives
     * {@code null} when nothing prices models
     */
    public ThrottledAnnotationBeanPostProcessor(Supplier<LlmThrottleRegistry> registry,
            Supplier<@Nullable CostEstimator> costs) {
        this.methods = new ThrottledMethods(registry, costs);
        ComposablePointcut pointcut = new ComposablePointcut(new AnnotationMatchingPointcut(Throttled.class, true))
            .union(new AnnotationMatchingPointcut(null, Throttled.class, true));
        this.advisor = new DefaultPointcutAdvisor(pointcut, new ThrottledInterceptor(this.methods));
        setBeforeExistingAdvisors(true);
        setProxyTargetClass(true);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof AopInfrastructureBean)) {
            this.methods.validate(AopUtils.getTargetClass(bean));
        }
        return super.postProcessAfterInitialization(bean, beanName);
    }

}
