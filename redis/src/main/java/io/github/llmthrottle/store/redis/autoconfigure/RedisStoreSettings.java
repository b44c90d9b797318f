package io.github.llmthrottle.store.redis.autoconfigure;

import java.time.Duration;

import io.github.llmthrottle.InvalidThrottleConfigurationException;
import io.github.llmthrottle.autoconfigure.SettingsValidation;
import io.github.llmthrottle.store.redis.RedisBucketStore;
import org.jspecify.annotations.Nullable;

/**
 * The checked settings of the Redis bucket store, mapped once from
 * {@link LlmThrottleRedisProperties} by {@link #of(LlmThrottleRedisProperties)}.
 *
 * @param keyPrefix prefix of the Redis keys that hold the buckets
 * @param onFailure what to do when Redis cannot be reached
 * @param timeout longest wait for one Redis command
 * @param retryInterval how long to do without Redis after a failure
 * @param instanceId how this instance is named to the others, {@code null} for
 * {@code pid@host}
 */
record RedisStoreSettings(String keyPrefix, RedisBucketStore.OnFailure onFailure, Duration timeout,
        Duration retryInterval, @Nullable String instanceId) {

    /**
     * The settings of {@code llm.throttle.redis.*}.
     * @param properties the bound properties
     * @return the settings
     * @throws InvalidThrottleConfigurationException naming the first invalid property
     */
    static RedisStoreSettings of(LlmThrottleRedisProperties properties) {
        return new RedisStoreSettings(properties.getKeyPrefix(),
                RedisBucketStore.OnFailure.valueOf(properties.getOnFailure().name()),
                SettingsValidation.positiveDuration("redis.timeout").adapt(properties.getTimeout()),
                SettingsValidation.nonNegativeDuration("redis.retry-interval").adapt(properties.getRetryInterval()),
                instanceId(properties.getInstanceId()));
    }

    private static @Nullable String instanceId(@Nullable String instanceId) {
        if (instanceId != null && instanceId.isBlank()) {
            throw new InvalidThrottleConfigurationException("llm.throttle.redis.instance-id", instanceId,
                    "an instance id must not be blank",
                    "Set it to a name of this instance, or remove it for pid@host.");
        }
        return instanceId;
    }

}
