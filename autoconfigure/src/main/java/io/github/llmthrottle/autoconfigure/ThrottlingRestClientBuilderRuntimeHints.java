package io.github.llmthrottle.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.web.client.RestClient;

/**
 * The JDK proxy a native image must know in advance: the {@code RestClient.Builder} that
 * {@link ThrottlingRestClientBuilderPostProcessor} makes of each of Boot's builders.
 */
class ThrottlingRestClientBuilderRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.proxies().registerJdkProxy(AopProxyUtils.completeJdkProxyInterfaces(RestClient.Builder.class));
    }

}
