package io.github.llmthrottle.store.redis.autoconfigure;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.quota.QuotaStore;
import io.github.llmthrottle.routing.CircuitStore;
import io.github.llmthrottle.store.BucketStore;
import io.github.llmthrottle.store.redis.RedisBucketStore;
import io.github.llmthrottle.store.redis.RedisCircuitStore;
import io.github.llmthrottle.store.redis.RedisQuotaStore;
import io.github.llmthrottle.time.TimeSource;
import io.lettuce.core.RedisClient;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.web.client.RestClient;

/**
 * Auto-configuration of the shared bucket store ({@code llm.throttle.store=redis}): a
 * {@link RedisBucketStore} on a connection of its own from Spring Boot's Lettuce client
 * (the {@code spring.data.redis.*} settings), closed on shutdown, and a
 * {@link RedisQuotaStore} for the token quotas over days and months, on the same
 * connection (on one of its own when the bucket store is the application's), and a
 * {@link RedisCircuitStore} on the bucket store's connection, so that circuits are shared
 * too. Runs before {@link LlmThrottleAutoConfiguration}, whose local store then backs
 * off. Without Lettuce or Boot's Lettuce connection, startup fails with a message naming
 * {@code llm.throttle.store} and what to add.
 */
@AutoConfiguration(before = LlmThrottleAutoConfiguration.class,
        afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass(RestClient.class)
@ConditionalOnBooleanProperty(name = "llm.throttle.enabled", matchIfMissing = true)
@ConditionalOnProperty(name = "llm.throttle.store", havingValue = "redis")
@EnableConfigurationProperties(LlmThrottleRedisProperties.class)
public final class LlmThrottleRedisAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ RedisClient.class, LettuceConnectionFactory.class })
    static class RedisBucketStoreConfiguration {

        @Bean
        @ConditionalOnMissingBean(BucketStore.class)
        @ConditionalOnBean(LettuceConnectionFactory.class)
        RedisBucketStore llmThrottleBucketStore(LlmThrottleRedisProperties properties,
                LettuceConnectionFactory connectionFactory, TimeSource timeSource) {
            RedisStoreSettings redis = RedisStoreSettings.of(properties);
            return new RedisBucketStore(connectionFactory.getNativeClient(), redis.keyPrefix(), redis.onFailure(),
                    redis.timeout(), redis.retryInterval(), timeSource, null, redis.instanceId());
        }

        @Bean
        @ConditionalOnMissingBean(CircuitStore.class)
        @ConditionalOnBean(RedisBucketStore.class)
        RedisCircuitStore llmThrottleCircuitStore(RedisBucketStore bucketStore) {
            return new RedisCircuitStore(bucketStore);
        }

        @Bean
        @ConditionalOnMissingBean(QuotaStore.class)
        @ConditionalOnBean(LettuceConnectionFactory.class)
        RedisQuotaStore llmThrottleQuotaStore(LlmThrottleRedisProperties properties,
                LettuceConnectionFactory connectionFactory, TimeSource timeSource,
                ObjectProvider<RedisBucketStore> bucketStore) {
            RedisStoreSettings redis = RedisStoreSettings.of(properties);
            RedisBucketStore buckets = bucketStore.getIfUnique();
            if (buckets != null) {
                // one connection, one outage, for both stores
                return new RedisQuotaStore(buckets, redis.keyPrefix());
            }
            return new RedisQuotaStore(connectionFactory.getNativeClient(), redis.keyPrefix(),
                    redis.onFailure() == RedisBucketStore.OnFailure.REJECT, redis.timeout(), redis.retryInterval(),
                    timeSource);
        }

    }

    @Configuration(proxyBeanMethods = false)
    @Conditional(RedisStoreUnusableCondition.class)
    static class RedisStoreUnusableConfiguration {

        @Bean
        @ConditionalOnMissingBean(BucketStore.class)
        BucketStore llmThrottleBucketStore(ResourceLoader resourceLoader) {
            throw RedisStoreRequirements.unusable(resourceLoader.getClassLoader());
        }

    }

    /** Matches when a class or the bean the Redis store needs is missing. */
    static final class RedisStoreUnusableCondition extends AnyNestedCondition {

        RedisStoreUnusableCondition() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnMissingClass(RedisStoreRequirements.LETTUCE_CLIENT)
        static class NoLettuce {

        }

        @ConditionalOnMissingClass(RedisStoreRequirements.CONNECTION_FACTORY)
        static class NoSpringDataRedis {

        }

        @ConditionalOnMissingBean(type = RedisStoreRequirements.CONNECTION_FACTORY)
        static class NoConnectionFactory {

        }

    }

}
