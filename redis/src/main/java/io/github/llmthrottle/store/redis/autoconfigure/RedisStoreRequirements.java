package io.github.llmthrottle.store.redis.autoconfigure;

import io.github.llmthrottle.InvalidThrottleConfigurationException;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * What {@code llm.throttle.store=redis} needs on the classpath and in the context:
 * Lettuce and Spring Boot's Lettuce connection ({@code spring.data.redis.*}). Says which
 * is missing in an {@link InvalidThrottleConfigurationException}. Refers to none of those
 * classes itself, so that it loads without them. ({@code llm.throttle.redis.*} values are
 * checked by {@link RedisStoreSettings}.)
 */
final class RedisStoreRequirements {

    static final String LETTUCE_CLIENT = "io.lettuce.core.RedisClient";

    static final String CONNECTION_FACTORY = "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory";

    private RedisStoreRequirements() {
    }

    /**
     * The failure to start with when the Redis store cannot be built.
     * @param classLoader the application's class loader
     * @return the exception naming {@code llm.throttle.store} and what to add
     */
    static InvalidThrottleConfigurationException unusable(@Nullable ClassLoader classLoader) {
        if (ClassUtils.isPresent(LETTUCE_CLIENT, classLoader)
                && ClassUtils.isPresent(CONNECTION_FACTORY, classLoader)) {
            return new InvalidThrottleConfigurationException("llm.throttle.store", "redis",
                    "the Redis store needs Spring Boot's Lettuce connection (a LettuceConnectionFactory bean, "
                            + "configured by spring.data.redis.*) and the application has none",
                    "Use Lettuce, Spring Boot's default Redis client (spring.data.redis.client-type=lettuce), "
                            + "or set llm.throttle.store to memory.");
        }
        return new InvalidThrottleConfigurationException("llm.throttle.store", "redis",
                "the Redis store needs Spring Data Redis with Lettuce (" + LETTUCE_CLIENT + ", " + CONNECTION_FACTORY
                        + ") on the classpath",
                "Add the dependency org.springframework.boot:spring-boot-starter-data-redis, or set "
                        + "llm.throttle.store to memory.");
    }

}
