package io.github.llmthrottle.autoconfigure;

import io.github.llmthrottle.budget.Budgets;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ThrottleSettings;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.metrics.BudgetMetrics;
import io.github.llmthrottle.metrics.GenAiClientMetrics;
import io.github.llmthrottle.metrics.QuotaMetrics;
import io.github.llmthrottle.metrics.ThrottleMetrics;
import io.github.llmthrottle.quota.TokenQuotas;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of llm-throttle's Micrometer meters ({@code llm.*}), when the
 * application has Micrometer and a {@link MeterRegistry} (with the gauges of the token
 * quotas, {@code llm.quota.*}; of money, {@code llm.cost} and {@code llm.budget.*}), and
 * of the OpenTelemetry GenAI client metrics ({@code gen_ai.client.*}) when
 * {@code llm.throttle.metrics.gen-ai.enabled=true}.
 */
@AutoConfiguration(after = LlmThrottleAutoConfiguration.class,
        afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, ThrottleSettings.class, LimiterRegistry.class })
@ConditionalOnBooleanProperty(name = "llm.throttle.metrics.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LlmThrottleMetricsProperties.class)
public final class LlmThrottleMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ThrottleMetrics llmThrottleMetrics(MeterRegistry meterRegistry, ThrottleSettings settings, LimiterRegistry limiters,
            LlmThrottleMetricsProperties properties, ObjectProvider<LlmThrottleRegistry> clients) {
        return new ThrottleMetrics(meterRegistry, settings, limiters, properties.toOptions(), clients::getIfAvailable);
    }

    @Bean
    @ConditionalOnBean(TokenQuotas.class)
    @ConditionalOnMissingBean
    QuotaMetrics llmThrottleQuotaMetrics(MeterRegistry meterRegistry, ThrottleSettings settings, TokenQuotas quotas) {
        return new QuotaMetrics(meterRegistry, settings, quotas);
    }

    @Bean
    @ConditionalOnBean(Budgets.class)
    @ConditionalOnMissingBean
    BudgetMetrics llmThrottleBudgetMetrics(MeterRegistry meterRegistry, ThrottleSettings settings, Budgets budgets) {
        return new BudgetMetrics(meterRegistry, settings, budgets);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty("llm.throttle.metrics.gen-ai.enabled")
    static class GenAiConfiguration {

        @Bean
        @ConditionalOnMissingBean
        GenAiClientMetrics llmThrottleGenAiMetrics(MeterRegistry meterRegistry, ThrottleSettings settings,
                LlmThrottleMetricsProperties properties, ConfigurableListableBeanFactory beanFactory) {
            return new GenAiClientMetrics(meterRegistry, settings, SpringAiTokenUsage.publishedByLlmThrottle(
                    properties.getGenAi().getTokenUsage(), beanFactory, beanFactory.getBeanClassLoader()));
        }

    }

}
