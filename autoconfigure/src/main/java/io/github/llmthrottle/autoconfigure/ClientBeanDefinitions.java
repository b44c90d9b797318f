package io.github.llmthrottle.autoconfigure;

import java.util.Map;

import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Registers one bean per client under {@code llm.throttle.clients} (the
 * {@code NAMERestClient} and {@code NAMEWebClient} beans), each defined by a static
 * factory method taking the client's name and an autowired factory, so that Spring's
 * ahead-of-time processing generates code for it, which it cannot do for an instance
 * supplier. A bean the application already defines under the same name wins; the
 * registered beans are fallbacks: injected by name or qualifier, or by type when they are
 * the only bean of it, but never making the application's own bean of that type
 * ambiguous.
 */
public final class ClientBeanDefinitions {

    private ClientBeanDefinitions() {
    }

    /**
     * Registers the beans of every configured client.
     * @param environment where the clients are configured
     * @param registry where to register them
     * @param beanNameSuffix appended to each client's name ({@code RestClient})
     * @param factoryClass the class declaring the factory method
     * @param factoryMethod a static method taking the client's name and an autowired
     * factory
     * @param type the type of the beans
     */
    public static void register(Environment environment, BeanDefinitionRegistry registry, String beanNameSuffix,
            Class<?> factoryClass, String factoryMethod, Class<?> type) {
        Map<String, ClientProperties> clients = Binder.get(environment)
            .bind("llm.throttle.clients", Bindable.mapOf(String.class, ClientProperties.class))
            .orElse(Map.of());
        for (String name : clients.keySet()) {
            String beanName = name + beanNameSuffix;
            if (registry.containsBeanDefinition(beanName)) {
                continue;
            }
            RootBeanDefinition definition = new RootBeanDefinition(factoryClass);
            definition.setFactoryMethodName(factoryMethod);
            definition.getConstructorArgumentValues().addIndexedArgumentValue(0, name);
            definition.setAutowireMode(AbstractBeanDefinition.AUTOWIRE_CONSTRUCTOR);
            definition.setTargetType(type);
            definition.setDescription("Throttled " + type.getSimpleName() + " of llm-throttle client '" + name + "'");
            definition.setFallback(true);
            registry.registerBeanDefinition(beanName, definition);
        }
    }

}
