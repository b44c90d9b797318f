package io.github.llmthrottle.autoconfigure;

import io.github.llmthrottle.restclient.ThrottledRestClientFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.support.BeanDefinitionRegistry;
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
 * <p>
 * Each definition names a static factory method,
 * {@link #restClient(String, ThrottledRestClientFactory)}, with the client's name as its
 * one explicit argument and the factory autowired: Spring's ahead-of-time processing
 * turns that into generated code, which it cannot do for an instance supplier. The set of
 * clients is therefore fixed when an application is processed ahead of time; their
 * settings are still bound when it starts.
 */
final class ThrottledRestClientsRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {

    static final String BEAN_NAME_SUFFIX = "RestClient";

    private static final String FACTORY_METHOD = "restClient";

    private @Nullable Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        Assert.state(this.environment != null, "Environment is required");
        ClientBeanDefinitions.register(this.environment, registry, BEAN_NAME_SUFFIX,
                ThrottledRestClientsRegistrar.class, FACTORY_METHOD, RestClient.class);
    }

    /**
     * The factory method of each client's bean.
     * @param name the client name
     * @param factory builds the client's {@code RestClient}
     * @return the throttled {@code RestClient} of the client
     */
    static RestClient restClient(String name, ThrottledRestClientFactory factory) {
        return factory.create(name);
    }

}
