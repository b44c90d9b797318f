package io.github.llmthrottle.store.redis.autoconfigure;

import java.time.Duration;

import io.github.llmthrottle.store.redis.RedisBucketStore;

/**
 * The checked settings of the Redis bucket store, mapped from
 * {@link LlmThrottleRedisProperties} by {@link ThrottleSettingsMapper}.
 *
 * @param keyPrefix prefix of the Redis keys that hold the buckets
 * @param onFailure what to do when Redis cannot be reached
 * @param timeout longest wait for one Redis command
 * @param retryInterval how long to do without Redis after a failure
 */
record RedisStoreSettings(String keyPrefix, RedisBucketStore.OnFailure onFailure, Duration timeout,
        Duration retryInterval) {

}
