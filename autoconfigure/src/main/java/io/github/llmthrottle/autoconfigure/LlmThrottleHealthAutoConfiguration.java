package io.github.llmthrottle.autoconfigure;

import io.github.llmthrottle.actuate.CircuitStateSource;
import io.github.llmthrottle.actuate.LlmThrottleHealthIndicator;
import io.github.llmthrottle.actuate.ProviderSignals;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.time.TimeSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code llmThrottle} health indicator, when the application
 * has Spring Boot's health support ({@code management.health.llmthrottle.enabled=false}
 * turns it off).
 */
@AutoConfiguration(after = LlmThrottleAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(LlmThrottleRegistry.class)
@ConditionalOnEnabledHealthIndicator("llmthrottle")
@EnableConfigurationProperties(LlmThrottleHealthProperties.class)
public final class LlmThrottleHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ProviderSignals llmThrottleProviderSignals(TimeSource timeSource) {
        return new ProviderSignals(timeSource);
    }

    @Bean
    @ConditionalOnMissingBean(name = "llmThrottleHealthIndicator")
    LlmThrottleHealthIndicator llmThrottleHealthIndicator(LlmThrottleRegistry registry, ProviderSignals signals,
            ObjectProvider<CircuitStateSource> circuits, LlmThrottleHealthProperties properties,
            LlmThrottleProperties throttle, TimeSource timeSource) {
        return new LlmThrottleHealthIndicator(registry, signals,
                circuits.getIfAvailable(() -> CircuitStateSource.DEFAULT), properties.getSignalWindow(), timeSource,
                throttle.getShowTenants());
    }

}
