package io.github.llmthrottle.autoconfigure;

import io.github.llmthrottle.actuate.CircuitStateSource;
import io.github.llmthrottle.actuate.LlmThrottleEndpoint;
import io.github.llmthrottle.actuate.LlmThrottleEndpointRuntimeHints;
import io.github.llmthrottle.actuate.LlmThrottleEndpointWebExtension;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.store.BucketStore;
import io.github.llmthrottle.store.SharedBucketStore;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * Auto-configuration of the {@code llmthrottle} Actuator endpoint, when the application
 * has Spring Boot's actuator.
 */
@AutoConfiguration(after = LlmThrottleAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(LlmThrottleRegistry.class)
@ImportRuntimeHints(LlmThrottleEndpointRuntimeHints.class)
public final class LlmThrottleEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(LlmThrottleEndpoint.class)
    LlmThrottleEndpoint llmThrottleEndpoint(LlmThrottleRegistry registry, ObjectProvider<CircuitStateSource> circuits,
            LlmThrottleProperties properties, ObjectProvider<BucketStore> bucketStore) {
        return new LlmThrottleEndpoint(registry, circuits.getIfAvailable(() -> CircuitStateSource.DEFAULT),
                properties.getShowTenants(),
                (bucketStore.getIfUnique() instanceof SharedBucketStore shared) ? shared : null);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(LlmThrottleEndpoint.class)
    @ConditionalOnAvailableEndpoint(endpoint = LlmThrottleEndpoint.class, exposure = EndpointExposure.WEB)
    LlmThrottleEndpointWebExtension llmThrottleEndpointWebExtension(LlmThrottleEndpoint endpoint) {
        return new LlmThrottleEndpointWebExtension(endpoint);
    }

}
