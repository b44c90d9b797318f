package io.github.llmthrottle.autoconfigure;

import java.time.Duration;

import io.github.llmthrottle.annotation.ThrottledAnnotationBeanPostProcessor;
import io.github.llmthrottle.budget.Budgets;
import io.github.llmthrottle.client.CompositeThrottleObserver;
import io.github.llmthrottle.client.IdleStreamReaper;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.TenantResolver;
import io.github.llmthrottle.client.ThrottleObserver;
import io.github.llmthrottle.client.ThrottleSettings;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.observation.LlmThrottleAttemptObservationConvention;
import io.github.llmthrottle.observation.LlmThrottleCallObservationConvention;
import io.github.llmthrottle.observation.LlmThrottleObservations;
import io.github.llmthrottle.provider.CharacterTokenEstimator;
import io.github.llmthrottle.provider.TokenEstimator;
import io.github.llmthrottle.quota.LocalQuotaStore;
import io.github.llmthrottle.quota.QuotaStore;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.restclient.ThrottledRestClientFactory;
import io.github.llmthrottle.restclient.ThrottlingInterceptor;
import io.github.llmthrottle.routing.CircuitStore;
import io.github.llmthrottle.routing.CostEstimator;
import io.github.llmthrottle.store.BucketStore;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.time.TimeSource;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.boot.http.client.autoconfigure.ClientHttpRequestFactoryBuilderCustomizer;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.web.client.RestClient;

/**
 * Auto-configuration of llm-throttle: one throttled {@code RestClient} per configured
 * client, and the same throttling for requests other {@code RestClient}s send to a
 * configured base URL.
 */
@AutoConfiguration(after = { HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class })
@ConditionalOnClass(RestClient.class)
@ConditionalOnBooleanProperty(name = "llm.throttle.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LlmThrottleProperties.class)
@Import(ThrottledRestClientsRegistrar.class)
public final class LlmThrottleAutoConfiguration {

    /** How often streamed responses are checked for callers that abandoned them. */
    private static final Duration IDLE_STREAM_CHECK = Duration.ofSeconds(1);

    @Bean
    @ConditionalOnMissingBean
    ThrottleSettings llmThrottleSettings(LlmThrottleProperties properties) {
        return ThrottleSettingsMapper.map(properties);
    }

    @Bean
    @ConditionalOnMissingBean
    TokenEstimator llmThrottleTokenEstimator() {
        return new CharacterTokenEstimator();
    }

    @Bean
    @ConditionalOnMissingBean
    TimeSource llmThrottleTimeSource() {
        return TimeSource.system();
    }

    @Bean
    @ConditionalOnMissingBean
    BucketStore llmThrottleBucketStore(TimeSource timeSource) {
        return new LocalBucketStore(timeSource);
    }

    @Bean
    @ConditionalOnMissingBean
    CircuitStore llmThrottleCircuitStore() {
        return CircuitStore.LOCAL;
    }

    @Bean
    @ConditionalOnMissingBean
    QuotaStore llmThrottleQuotaStore(TimeSource timeSource) {
        return new LocalQuotaStore(timeSource.clock());
    }

    @Bean
    @ConditionalOnMissingBean
    Budgets llmThrottleBudgets(LlmThrottleProperties properties, ThrottleSettings settings, QuotaStore quotaStore,
            TimeSource timeSource) {
        return new Budgets(BudgetSettingsMapper.map(properties), quotaStore, timeSource.clock(),
                settings.limiter().maxTrackedNames());
    }

    @Bean
    @ConditionalOnMissingBean
    TokenQuotas llmThrottleTokenQuotas(ThrottleSettings settings, QuotaStore quotaStore, TimeSource timeSource) {
        return new TokenQuotas(settings.quotas(), quotaStore, timeSource.clock(), settings.limiter().maxTrackedNames());
    }

    @Bean
    @ConditionalOnMissingBean
    LimiterRegistry llmThrottleLimiterRegistry(ThrottleSettings settings, BucketStore bucketStore,
            TimeSource timeSource) {
        return new LimiterRegistry(settings.clientLimits(), settings.queueCapacity(), settings.maxWait(),
                settings::tenantLimits, bucketStore, timeSource, settings.limiter());
    }

    @Bean
    @ConditionalOnMissingBean
    LlmThrottleRegistry llmThrottleRegistry(ThrottleSettings settings, LimiterRegistry limiters,
            TokenEstimator tokenEstimator, ObjectProvider<TenantResolver> tenantResolver, TimeSource timeSource,
            ObjectProvider<ThrottleObserver> observers, TokenQuotas quotas, Budgets budgets, CircuitStore circuits,
            ObjectProvider<ObservationRegistry> observationRegistry,
            ObjectProvider<LlmThrottleCallObservationConvention> callConvention,
            ObjectProvider<LlmThrottleAttemptObservationConvention> attemptConvention) {
        return LlmThrottleRegistry.create(settings, limiters, tokenEstimator,
                tenantResolver.getIfAvailable(() -> TenantResolver.NONE), timeSource,
                new CompositeThrottleObserver(observers.orderedStream().toList()),
                new LlmThrottleObservations(observationRegistry.getIfAvailable(() -> ObservationRegistry.NOOP),
                        callConvention.getIfUnique(), attemptConvention.getIfUnique()),
                quotas, budgets, circuits);
    }

    @Bean
    @ConditionalOnMissingBean
    IdleStreamReaper llmThrottleIdleStreamReaper(LlmThrottleRegistry registry) {
        return new IdleStreamReaper(registry, IDLE_STREAM_CHECK);
    }

    @Bean
    @ConditionalOnMissingBean
    ThrottlingInterceptor llmThrottleInterceptor(LlmThrottleRegistry registry) {
        return new ThrottlingInterceptor(registry);
    }

    @Bean
    @ConditionalOnMissingBean
    ThrottledRestClientFactory llmThrottleRestClientFactory(LlmThrottleRegistry registry,
            ThrottlingInterceptor interceptor, ObjectProvider<RestClient.Builder> builders,
            ObjectProvider<ClientHttpRequestFactoryBuilder<?>> requestFactoryBuilder,
            ObjectProvider<HttpClientSettings> httpClientSettings) {
        return new ThrottledRestClientFactory(registry, interceptor, () -> builders.getIfAvailable(RestClient::builder),
                ThrottlingRequestFactoryBuilder
                    .unwrap(requestFactoryBuilder.getIfAvailable(ClientHttpRequestFactoryBuilder::detect)),
                httpClientSettings.getIfAvailable(HttpClientSettings::defaults));
    }

    /**
     * Wraps the request factories Boot builds for its RestClient and RestTemplate
     * builders so that requests to a configured client's host are throttled: a factory
     * rather than an interceptor, since an interceptor would make Spring buffer the
     * request body of every request of every Boot-built client, whatever its host.
     * Ordered last, so that customizers of a specific HTTP client's builder still see
     * that builder.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ClientHttpRequestFactoryBuilderCustomizer.class)
    @ImportRuntimeHints(ThrottlingRestClientBuilderRuntimeHints.class)
    static class RequestFactoryConfiguration {

        @Bean
        static ThrottlingRestClientBuilderPostProcessor llmThrottleRestClientBuilderPostProcessor(
                ObjectProvider<LlmThrottleRegistry> registry, ObjectProvider<ThrottlingInterceptor> interceptor) {
            return new ThrottlingRestClientBuilderPostProcessor(registry, interceptor);
        }

        @Bean
        @Order(Ordered.LOWEST_PRECEDENCE)
        ClientHttpRequestFactoryBuilderCustomizer<ClientHttpRequestFactoryBuilder<?>> llmThrottleRequestFactoryBuilderCustomizer(
                ObjectProvider<LlmThrottleRegistry> registry, ObjectProvider<ThrottlingInterceptor> interceptor) {
            return (builder) -> new ThrottlingRequestFactoryBuilder(builder, registry, interceptor);
        }

    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
            name = "org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor")
    static class ThrottledAnnotationConfiguration {

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        @ConditionalOnMissingBean
        static ThrottledAnnotationBeanPostProcessor llmThrottleAnnotationBeanPostProcessor(
                ObjectProvider<LlmThrottleRegistry> registry, ObjectProvider<CostEstimator> costs) {
            // the application's own estimator, if it has one, else the configured prices
            return new ThrottledAnnotationBeanPostProcessor(registry::getObject,
                    () -> costs.orderedStream()
                        .filter((estimator) -> !(estimator instanceof Budgets))
                        .findFirst()
                        .orElseGet(() -> registry.getObject().getBudgets()));
        }

    }

}
