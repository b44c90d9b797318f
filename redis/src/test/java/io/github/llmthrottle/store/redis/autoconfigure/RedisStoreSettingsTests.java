package io.github.llmthrottle.store.redis.autoconfigure;

import java.time.Duration;

import io.github.llmthrottle.InvalidThrottleConfigurationException;
import io.github.llmthrottle.store.redis.RedisBucketStore;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link RedisStoreSettings}: {@code llm.throttle.redis.*} mapped and checked.
 */
class RedisStoreSettingsTests {

    @Test
    void redisSettingsAreMappedAndChecked() {
        LlmThrottleRedisProperties redis = new LlmThrottleRedisProperties();
        assertThat(RedisStoreSettings.of(redis)).isEqualTo(new RedisStoreSettings("llm-throttle",
                RedisBucketStore.OnFailure.LOCAL, Duration.ofMillis(500), Duration.ofSeconds(2), null));
        redis.setOnFailure(LlmThrottleRedisProperties.OnFailure.REJECT);
        redis.setRetryInterval(Duration.ZERO);
        assertThat(RedisStoreSettings.of(redis).onFailure()).isEqualTo(RedisBucketStore.OnFailure.REJECT);
        redis.setTimeout(Duration.ZERO);
        assertInvalid(() -> RedisStoreSettings.of(redis), "llm.throttle.redis.timeout", "must be positive");
        redis.setTimeout(Duration.ofSeconds(1));
        redis.setRetryInterval(Duration.ofSeconds(-2));
        assertInvalid(() -> RedisStoreSettings.of(redis), "llm.throttle.redis.retry-interval", "must not be negative");
        redis.setRetryInterval(Duration.ofSeconds(2));
        redis.setInstanceId(" ");
        assertInvalid(() -> RedisStoreSettings.of(redis), "llm.throttle.redis.instance-id", "must not be blank");
        redis.setInstanceId("orders-7");
        assertThat(RedisStoreSettings.of(redis).instanceId()).isEqualTo("orders-7");
    }

    private static void assertInvalid(ThrowingCallable mapping, String property, String reason) {
        assertThatExceptionOfType(InvalidThrottleConfigurationException.class).isThrownBy(mapping).satisfies((ex) -> {
            assertThat(ex.getSubject()).isEqualTo(property);
            assertThat(ex.getReason()).contains(reason);
            assertThat(ex.getAction()).isNotBlank();
        });
    }

}
