package io.github.llmthrottle.webclient.autoconfigure;

import java.util.Map;

import io.github.llmthrottle.autoconfigure.ClientProperties;
import io.github.llmthrottle.webclient.ThrottledWebClientFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.Assert;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Registers one {@code WebClient} bean named {@code NAMEWebClient} for each client under
 * {@code llm.throttle.clients}, built by the {@link ThrottledWebClientFactory}, unless
 * the application already defines a bean of that name. The beans are fallbacks: an
 * application's own {@code WebClient} wins injection by type. As for the
 * {@code NAMERestClient} beans, each definition names a static factory method, so that
 * ahead-of-time processing can generate code for it.
 */
final class ThrottledWebClientsRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {

    static final String BEAN_NAME_SUFFIX = "WebClient";

    private static final String FACTORY_METHOD = "webClient";

    private @Nullable Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        Assert.state(this.environment != null, "Environment is required");
        Map<String, ClientProperties> clients = Binder.get(this.environment)
            .bind("llm.throttle.clients", Bindable.mapOf(String.class, ClientProperties.class))
            .orElse(Map.of());
        for (String name : clients.keySet()) {
            String beanName = name + BEAN_NAME_SUFFIX;
            if (registry.containsBeanDefinition(beanName)) {
                continue;
            }
            RootBeanDefinition definition = new RootBeanDefinition(ThrottledWebClientsRegistrar.class);
            definition.setFactoryMethodName(FACTORY_METHOD);
            definition.getConstructorArgumentValues().addIndexedArgumentValue(0, name);
            definition.setAutowireMode(AbstractBeanDefinition.AUTOWIRE_CONSTRUCTOR);
            definition.setTargetType(WebClient.class);
            definition.setDescription("Throttled WebClient of llm-throttle client '" + name + "'");
            definition.setFallback(true);
            registry.registerBeanDefinition(beanName, definition);
        }
    }

    /**
     * The factory method of each client's bean.
     * @param name the client name
     * @param factory builds the client's {@code WebClient}
     * @return the throttled {@code WebClient} of the client
     */
    static WebClient webClient(String name, ThrottledWebClientFactory factory) {
        return factory.create(name);
    }

}
