package io.github.llmthrottle.annotation;

import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Set;

import io.github.llmthrottle.Throttled;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Registers, when an application is processed ahead of time, the reflection a native
 * image needs for each bean with {@link Throttled} methods: the bean class, each
 * annotated method (read and invoked through the proxy), each method its
 * {@code fallbackMethod} names (found by name and invoked reflectively), and, for a
 * method with a {@code tenant} expression, its parameter types, whose properties the SpEL
 * expression reads ({@code #request.tenantId}). The class-based proxy itself is generated
 * by Spring's ahead-of-time processing, as for any advised bean.
 * <p>
 * Registered in {@code META-INF/spring/aot.factories}.
 */
class ThrottledBeanRegistrationAotProcessor implements BeanRegistrationAotProcessor {

    @Override
    public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        Class<?> beanClass = registeredBean.getBeanClass();
        if (!AnnotationUtils.isCandidateClass(beanClass, Throttled.class)) {
            return null;
        }
        Set<Method> throttled = new LinkedHashSet<>();
        Set<Method> fallbacks = new LinkedHashSet<>();
        Set<Class<?>> tenantParameters = new LinkedHashSet<>();
        Throttled classAnnotation = AnnotatedElementUtils.findMergedAnnotation(beanClass, Throttled.class);
        ReflectionUtils.doWithMethods(beanClass, (method) -> {
            Throttled annotation = AnnotatedElementUtils.findMergedAnnotation(method, Throttled.class);
            if (annotation == null && classAnnotation != null && ThrottledMethods.coveredByClassAnnotation(method)) {
                annotation = classAnnotation;
            }
            if (annotation == null) {
                return;
            }
            throttled.add(method);
            String fallback = annotation.fallbackMethod().trim();
            if (!fallback.isEmpty()) {
                ReflectionUtils.doWithMethods(beanClass, fallbacks::add,
                        (candidate) -> candidate.getName().equals(fallback) && !candidate.isSynthetic());
            }
            if (!annotation.tenant().isBlank()) {
                tenantParameters.addAll(Set.of(method.getParameterTypes()));
            }
        }, (method) -> method.getDeclaringClass() != Object.class && !method.isBridge() && !method.isSynthetic());
        if (throttled.isEmpty()) {
            return null;
        }
        return (generationContext, code) -> {
            ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
            reflection.registerType(beanClass);
            throttled.forEach((method) -> reflection.registerMethod(method, ExecutableMode.INVOKE));
            fallbacks.forEach((method) -> reflection.registerMethod(method, ExecutableMode.INVOKE));
            new BindingReflectionHintsRegistrar().registerReflectionHints(reflection,
                    tenantParameters.toArray(Class<?>[]::new));
        };
    }

}
