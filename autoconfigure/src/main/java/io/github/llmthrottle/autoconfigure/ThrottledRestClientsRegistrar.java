package io.github.llmthrottle.autoconfigure;

import java.util.Map;

import io.github.llmthrottle.client.ThrottledRestClientFactory;

import org.springframework.beans.factory.BeanRegistrar;
import org.springframework.beans.factory.BeanRegistry;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.web.client.RestClient;

/**
 * Registers one {@code RestClient} bean named {@code NAMERestClient} for each client under
 * {@code llm.throttle.clients}, built by the {@link ThrottledRestClientFactory}.
 */
final class ThrottledRestClientsRegistrar implements BeanRegistrar {

    static final String BEAN_NAME_SUFFIX = "RestClient";

    @Override
    public void register(BeanRegistry registry, Environment environment) {
        Binder binder = Binder.get(environment);
        Map<String, LlmThrottleProperties.Client> clients = binder
            .bind("llm.throttle.clients", Bindable.mapOf(String.class, LlmThrottleProperties.Client.class))
            .orElse(Map.of());
        for (String name : clients.keySet()) {
            registry.registerBean(name + BEAN_NAME_SUFFIX, RestClient.class,
                    (spec) -> spec.description("Throttled RestClient of llm-throttle client '" + name + "'")
                        .supplier((context) -> context.bean(ThrottledRestClientFactory.class).create(name)));
        }
    }

}
