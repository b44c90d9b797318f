package io.github.llmthrottle.store.redis.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the shared bucket store ({@code llm.throttle.redis.*}), used when
 * {@code llm.throttle.store} is {@code redis}. The connection itself is Spring Boot's
 * ({@code spring.data.redis.*}).
 */
@ConfigurationProperties("llm.throttle.redis")
public class LlmThrottleRedisProperties {

    /**
     * Prefix of the Redis keys that hold the buckets.
     */
    private String keyPrefix = "llm-throttle";

    /**
     * What to do when Redis cannot be reached: local (keep serving on local buckets) or
     * reject (fail calls).
     */
    private OnFailure onFailure = OnFailure.LOCAL;

    /**
     * Longest wait for one Redis command; a command that takes longer fails (or, with
     * on-failure local, serves from local buckets) only its own call, and three in a row
     * count as a failure of Redis.
     */
    private Duration timeout = Duration.ofMillis(500);

    /**
     * How long to do without Redis after a failure before trying it again.
     */
    private Duration retryInterval = Duration.ofSeconds(2);

    /**
     * How this instance is named to the others in what it shares (who paused a model, who
     * changed a circuit; shown by the actuator endpoint). When not set, the process id
     * and host name: pid@host.
     */
    private @Nullable String instanceId;

    public String getKeyPrefix() {
        return this.keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public @Nullable String getInstanceId() {
        return this.instanceId;
    }

    public void setInstanceId(@Nullable String instanceId) {
        this.instanceId = instanceId;
    }

    public OnFailure getOnFailure() {
        return this.onFailure;
    }

    public void setOnFailure(OnFailure onFailure) {
        this.onFailure = onFailure;
    }

    public Duration getTimeout() {
        return this.timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    public Duration getRetryInterval() {
        return this.retryInterval;
    }

    public void setRetryInterval(Duration retryInterval) {
        this.retryInterval = retryInterval;
    }

    /**
     * Behaviour when Redis fails.
     */
    public enum OnFailure {

        /** Keep serving on local buckets. */
        LOCAL,

        /** Fail calls until Redis is back. */
        REJECT

    }

}
