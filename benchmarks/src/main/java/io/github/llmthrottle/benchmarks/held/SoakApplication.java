package io.github.llmthrottle.benchmarks.held;

import java.util.Map;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.benchmarks.ThrottleApplication;
import io.github.llmthrottle.store.redis.autoconfigure.LlmThrottleRedisAutoConfiguration;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * The Spring application a {@link Soak} calls through: {@link ThrottleApplication} with
 * the memory store, or with Boot's Redis connection and the Redis store on top.
 */
final class SoakApplication {

    private SoakApplication() {
    }

    static ConfigurableApplicationContext start(String baseUrl, boolean redis, String... extra) {
        Map<String, Object> limits = Map.of("requests-per-minute", Soak.REQUESTS_PER_MINUTE, "input-tokens-per-minute",
                Soak.INPUT_TOKENS_PER_MINUTE, "output-tokens-per-minute", Soak.OUTPUT_TOKENS_PER_MINUTE);
        if (!redis) {
            return ThrottleApplication.start(baseUrl, Soak.MODEL, limits, extra);
        }
        return new SpringApplicationBuilder(RedisThrottleApplication.class).web(WebApplicationType.NONE)
            .properties(ThrottleApplication.properties(baseUrl, Soak.MODEL, limits, extra))
            .run();
    }

    /**
     * Boot's Redis connection and the Redis store on top of {@link ThrottleApplication}.
     */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
            DataRedisAutoConfiguration.class, LlmThrottleRedisAutoConfiguration.class,
            LlmThrottleAutoConfiguration.class })
    static class RedisThrottleApplication {

    }

}
