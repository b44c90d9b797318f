package io.github.llmthrottle.autoconfigure;

import java.util.Map;

import io.github.llmthrottle.restclient.ThrottledRestClientFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.Assert;
import org.springframework.web.client.RestClient;

/**
 * Registers one {@code RestClient} bean named {@code NAMERestClient} for each client
 * under {@code llm.throttle.clients}, built by the {@link ThrottledRestClientFactory},
 * unless the application already defines a bean of that name (it backs off, as a
 * {@code @ConditionalOnMissingBean} would). The beans are fallbacks: an application's own
 * {@code RestClient} wins injection by type.
 */
final class ThrottledRestClientsRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware, BeanFactoryAware {

    static final String BEAN_NAME_SUFFIX = "RestClient";

    private @Nullable Environment environment;

    private @Nullable BeanFactory beanFactory;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        Assert.state(this.environment != null && this.beanFactory != null, "Environment and BeanFactory are required");
        BeanFactory beanFactory = this.beanFactory;
        Map<String, ClientProperties> clients = Binder.get(this.environment)
            .bind("llm.throttle.clients", Bindable.mapOf(String.class, ClientProperties.class))
            .orElse(Map.of());
        for (String name : clients.keySet()) {
            String beanName = name + BEAN_NAME_SUFFIX;
            if (registry.containsBeanDefinition(beanName)) {
                continue;
            }
            RootBeanDefinition definition = new RootBeanDefinition(RestClient.class);
            definition.setDescription("Throttled RestClient of llm-throttle client '" + name + "'");
            // a fallback: injected by name or qualifier, or by type when it is the only
            // RestClient, but never making the application's own RestClient ambiguous
            definition.setFallback(true);
            definition.setInstanceSupplier(() -> beanFactory.getBean(ThrottledRestClientFactory.class).create(name));
            registry.registerBeanDefinition(beanName, definition);
        }
    }

}
