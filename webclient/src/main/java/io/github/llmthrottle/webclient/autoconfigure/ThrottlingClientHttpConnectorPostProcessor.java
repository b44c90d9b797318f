package io.github.llmthrottle.webclient.autoconfigure;

import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.webclient.ThrottlingClientHttpConnector;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.http.client.reactive.ClientHttpConnector;

/**
 * Wraps every {@link ClientHttpConnector} bean (Boot's, or the application's own) in a
 * {@link ThrottlingClientHttpConnector}. Boot's {@code WebClient.Builder} takes that bean
 * as its connector, so every {@code WebClient} built from it throttles the requests to a
 * configured client's base URL, and sends the others on untouched. The registry is looked
 * up when requests flow, not when the connector is created.
 */
final class ThrottlingClientHttpConnectorPostProcessor implements BeanPostProcessor {

    private final ObjectProvider<LlmThrottleRegistry> registry;

    ThrottlingClientHttpConnectorPostProcessor(ObjectProvider<LlmThrottleRegistry> registry) {
        this.registry = registry;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof ClientHttpConnector connector && !(bean instanceof ThrottlingClientHttpConnector)) {
            return new ThrottlingClientHttpConnector(connector, this.registry::getObject);
        }
        return bean;
    }

}
