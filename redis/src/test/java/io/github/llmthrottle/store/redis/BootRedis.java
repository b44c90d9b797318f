package io.github.llmthrottle.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.quota.QuotaStore;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.store.BucketStore;
import io.github.llmthrottle.store.redis.autoconfigure.LlmThrottleRedisAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application with Spring Boot's Redis auto-configuration and {@code store: redis}, on
 * the Redis servers Boot's {@code spring.data.redis.*} settings name.
 */
final class BootRedis {

    private BootRedis() {
    }

    /**
     * The application.
     * @param prefix the key prefix
     * @param redis Boot's Redis settings
     * @return its runner
     */
    static ApplicationContextRunner runner(String prefix, String... redis) {
        List<String> properties = new ArrayList<>(List.of("llm.throttle.store=redis",
                "llm.throttle.redis.key-prefix=" + prefix, "llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.models.opus.requests-per-minute=100",
                "llm.throttle.clients.anthropic.models.opus.tokens-per-day=1000000"));
        properties.addAll(List.of(redis));
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
                    HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                    LlmThrottleRedisAutoConfiguration.class, LlmThrottleAutoConfiguration.class))
            .withPropertyValues(properties.toArray(String[]::new));
    }

    /**
     * Admits one call of {@code anthropic}'s {@code opus} and reserves its quota.
     * @param context the application
     */
    static void callOnce(AssertableApplicationContext context) throws Exception {
        assertThat(context).hasNotFailed();
        assertThat(context.getBean(BucketStore.class)).isInstanceOf(RedisBucketStore.class);
        context.getBean(LimiterRegistry.class)
            .limiter("anthropic", "opus")
            .acquire(new AdmissionRequest(Priority.NORMAL, null, 10, 10, Duration.ofSeconds(10)))
            .release(Permit.Outcome.SUCCESS);
        context.getBean(TokenQuotas.class).reserve("anthropic", "opus", null, 20).settle(20);
        ((RedisQuotaStore) context.getBean(QuotaStore.class)).awaitSent();
    }

}
