package io.github.llmthrottle.webclient.autoconfigure;

import io.github.llmthrottle.autoconfigure.ClientBeanDefinitions;
import io.github.llmthrottle.webclient.ThrottledWebClientFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.support.BeanDefinitionRegistry;
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
        ClientBeanDefinitions.register(this.environment, registry, BEAN_NAME_SUFFIX, ThrottledWebClientsRegistrar.class,
                FACTORY_METHOD, WebClient.class);
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
