package io.github.llmthrottle.autoconfigure;

import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.restclient.ThrottlingClientHttpRequestFactory;
import io.github.llmthrottle.restclient.ThrottlingInterceptor;
import org.aopalliance.intercept.MethodInterceptor;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * Keeps Boot's {@code RestClient.Builder}s throttling when code that builds a client from
 * one gives it a request factory of its own (LangChain4j's Spring RestClient HTTP client
 * does, to apply its timeouts): the builder is proxied so that every factory it is given
 * is wrapped in a {@link ThrottlingClientHttpRequestFactory}, as the factory Boot gave it
 * already is ({@link ThrottlingRequestFactoryBuilder}). Copies made with {@code clone()}
 * are proxied too.
 */
final class ThrottlingRestClientBuilderPostProcessor implements BeanPostProcessor {

    private final ObjectProvider<LlmThrottleRegistry> registry;

    private final ObjectProvider<ThrottlingInterceptor> interceptor;

    ThrottlingRestClientBuilderPostProcessor(ObjectProvider<LlmThrottleRegistry> registry,
            ObjectProvider<ThrottlingInterceptor> interceptor) {
        this.registry = registry;
        this.interceptor = interceptor;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        return (bean instanceof RestClient.Builder builder) ? proxy(builder) : bean;
    }

    private RestClient.Builder proxy(RestClient.Builder builder) {
        ProxyFactory proxyFactory = new ProxyFactory(builder);
        proxyFactory.addInterface(RestClient.Builder.class);
        proxyFactory.addAdvice((MethodInterceptor) (invocation) -> {
            String method = invocation.getMethod().getName();
            Object[] arguments = invocation.getArguments();
            if (method.equals("requestFactory") && arguments.length == 1
                    && arguments[0] instanceof ClientHttpRequestFactory factory) {
                arguments[0] = ThrottlingClientHttpRequestFactory.wrap(factory, this.registry.getObject(),
                        this.interceptor.getObject());
            }
            Object result = invocation.proceed();
            if (method.equals("clone") && result instanceof RestClient.Builder copy) {
                return proxy(copy);
            }
            return result;
        });
        return (RestClient.Builder) proxyFactory.getProxy(getClass().getClassLoader());
    }

}
