package io.github.llmthrottle.store.redis.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.TokenQuotaExceededException;
import io.github.llmthrottle.autoconfigure.InvalidThrottleConfigurationFailureAnalyzer;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.limit.TestRedis;
import io.github.llmthrottle.quota.QuotaStore;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.store.BucketStore;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.store.redis.RedisBucketStore;
import io.github.llmthrottle.store.redis.RedisQuotaStore;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link LlmThrottleRedisAutoConfiguration} with Spring Boot's Redis auto-configuration,
 * against a real Redis server, the one {@link TestRedis} finds or starts.
 */
class LlmThrottleRedisAutoConfigurationTests {

    private final String prefix = "llm-throttle-test-" + UUID.randomUUID();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, HttpClientAutoConfiguration.class,
                RestClientAutoConfiguration.class, LlmThrottleRedisAutoConfiguration.class,
                LlmThrottleAutoConfiguration.class))
        .withPropertyValues("spring.data.redis.host=" + TestRedis.HOST, "spring.data.redis.port=" + TestRedis.port(),
                "llm.throttle.redis.key-prefix=" + this.prefix, "llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.models.opus.requests-per-minute=2");

    @AfterEach
    void deleteKeys() {
        RedisClient client = RedisClient.create(TestRedis.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            List<String> keys = connection.sync().keys(this.prefix + ":*");
            if (!keys.isEmpty()) {
                connection.sync().del(keys.toArray(String[]::new));
            }
        }
        finally {
            client.shutdown();
        }
    }

    @Test
    void storeRedisSharesTheBucketsThroughBootsRedisConnection() {
        this.runner.withPropertyValues("llm.throttle.store=redis").run((context) -> {
            assertThat(context).hasSingleBean(BucketStore.class);
            assertThat(context.getBean(BucketStore.class)).isInstanceOf(RedisBucketStore.class)
                .hasToString("RedisBucketStore[keyPrefix=" + this.prefix + ", onFailure=LOCAL]");
            acquire(context);
            // the bucket, and what the NORMAL call took lately (kept for priority across
            // the fleet)
            assertThat(keys()).containsExactlyInAnyOrder(this.prefix + ":{anthropic:opus}:requests",
                    this.prefix + ":{anthropic:opus}:demand");
        });
    }

    @Test
    void storeRedisSharesTheTokenQuotasToo() {
        // Both applications on a clock far off the Redis server's: the quotas count in
        // the server's day all the same.
        FakeClock clock = FakeClock.at("2099-12-31T23:59:59Z");
        this.runner.withBean(TimeSource.class, () -> clock)
            .withPropertyValues("llm.throttle.store=redis",
                    "llm.throttle.clients.anthropic.models.opus.tokens-per-day=1000")
            .run((first) -> this.runner.withBean(TimeSource.class, () -> clock)
                .withPropertyValues("llm.throttle.store=redis",
                        "llm.throttle.clients.anthropic.models.opus.tokens-per-day=1000")
                .run((second) -> {
                    assertThat(first.getBean(QuotaStore.class)).isInstanceOf(RedisQuotaStore.class);
                    first.getBean(TokenQuotas.class).reserve("anthropic", "opus", null, 600);
                    Throwable refused = catchThrowable(
                            () -> second.getBean(TokenQuotas.class).reserve("anthropic", "opus", null, 600));
                    List<String> days = keys().stream()
                        .filter((key) -> key.startsWith(this.prefix + ":{quota}:model:anthropic:opus:day:"))
                        .toList();
                    assertThat(days).isNotEmpty().noneMatch((key) -> key.endsWith("2099-12-31"));
                    if (days.size() == 1) {
                        // (unless the server's midnight fell between the two)
                        assertThat(refused).isInstanceOf(TokenQuotaExceededException.class);
                    }
                }));
    }

    @Test
    void twoApplicationsSharingRedisTogetherStayWithinTheLimit() {
        this.runner.withPropertyValues("llm.throttle.store=redis").run((first) -> {
            this.runner.withPropertyValues("llm.throttle.store=redis").run((second) -> {
                assertThat(acquire(first)).isTrue();
                assertThat(acquire(second)).isTrue();
                assertThat(acquire(first)).isFalse();
                assertThat(acquire(second)).isFalse();
            });
        });
    }

    @Test
    void onFailureRejectIsPassedOn() {
        this.runner.withPropertyValues("llm.throttle.store=redis", "llm.throttle.redis.on-failure=reject")
            .run((context) -> assertThat(context.getBean(BucketStore.class)).asString().contains("onFailure=REJECT"));
    }

    @Test
    void closingTheContextClosesTheStoresConnection() {
        RedisBucketStore[] store = new RedisBucketStore[1];
        this.runner.withPropertyValues("llm.throttle.store=redis")
            .run((context) -> store[0] = context.getBean(RedisBucketStore.class));
        store[0].bucket("after-close", 10).tryConsume(1);
        assertThat(keys()).isEmpty();
    }

    @Test
    void storeMemoryIsTheDefault() {
        this.runner.run((context) -> {
            assertThat(context).hasSingleBean(BucketStore.class);
            assertThat(context.getBean(BucketStore.class)).isInstanceOf(LocalBucketStore.class);
        });
        this.runner.withPropertyValues("llm.throttle.store=memory")
            .run((context) -> assertThat(context.getBean(BucketStore.class)).isInstanceOf(LocalBucketStore.class));
    }

    @Test
    void aBucketStoreBeanOfTheApplicationWins() {
        this.runner.withPropertyValues("llm.throttle.store=redis")
            .withBean("myStore", BucketStore.class, () -> (key, limit) -> null)
            .run((context) -> {
                assertThat(context).hasSingleBean(BucketStore.class);
                assertThat(context).hasBean("myStore");
            });
    }

    @Test
    void storeRedisWithoutLettuceFailsNamingThePropertyAndTheDependency() {
        this.runner.withPropertyValues("llm.throttle.store=redis")
            .withClassLoader(new FilteredClassLoader(RedisClient.class))
            .run((context) -> {
                FailureAnalysis analysis = analyze(context);
                assertThat(analysis.getDescription()).contains("llm.throttle.store").contains("redis");
                assertThat(analysis.getAction()).contains("spring-boot-starter-data-redis").doesNotContain("bucket4j");
            });
    }

    @Test
    void storeRedisNeedsNothingButSpringDataRedisWithLettuce() {
        this.runner.withPropertyValues("llm.throttle.store=redis")
            .withClassLoader(new FilteredClassLoader("io.github.bucket4j.redis"))
            .run((context) -> assertThat(context).hasSingleBean(RedisBucketStore.class));
    }

    @Test
    void storeRedisWithoutBootsLettuceConnectionFailsNamingTheProperty() {
        new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                            LlmThrottleRedisAutoConfiguration.class, LlmThrottleAutoConfiguration.class))
            .withPropertyValues("llm.throttle.store=redis")
            .run((context) -> {
                FailureAnalysis analysis = analyze(context);
                assertThat(analysis.getDescription()).contains("llm.throttle.store")
                    .contains("LettuceConnectionFactory");
            });
    }

    @Test
    void redisSettingsAreBoundWhereTheRedisStoreIsConfigured() {
        this.runner.withPropertyValues("llm.throttle.store=redis").run((context) -> {
            LlmThrottleRedisProperties redis = context.getBean(LlmThrottleRedisProperties.class);
            assertThat(redis.getKeyPrefix()).isEqualTo(this.prefix);
            assertThat(redis.getOnFailure()).isEqualTo(LlmThrottleRedisProperties.OnFailure.LOCAL);
            assertThat(redis.getTimeout()).isEqualTo(Duration.ofMillis(500));
            assertThat(redis.getRetryInterval()).isEqualTo(Duration.ofSeconds(2));
        });
    }

    @Test
    void redisSettingsAreNotBoundWithTheMemoryStore() {
        this.runner.run((context) -> assertThat(context).doesNotHaveBean(LlmThrottleRedisProperties.class));
    }

    @Test
    void nonPositiveTimeoutFailsNamingTheProperty() {
        this.runner.withPropertyValues("llm.throttle.store=redis", "llm.throttle.redis.timeout=0s")
            .run((context) -> assertThat(analyze(context).getDescription()).contains("llm.throttle.redis.timeout"));
    }

    private static boolean acquire(AssertableApplicationContext context) throws InterruptedException {
        try {
            Permit permit = context.getBean(LimiterRegistry.class)
                .limiter("anthropic", "opus")
                .acquire(new AdmissionRequest(Priority.NORMAL, null, 0, 0, Duration.ZERO));
            permit.release(Permit.Outcome.IGNORED);
            return true;
        }
        catch (io.github.llmthrottle.AdmissionTimeoutException ex) {
            return false;
        }
    }

    private List<String> keys() {
        RedisClient client = RedisClient.create(TestRedis.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().keys(this.prefix + ":*");
        }
        finally {
            client.shutdown();
        }
    }

    private static FailureAnalysis analyze(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        FailureAnalysis analysis = new InvalidThrottleConfigurationFailureAnalyzer()
            .analyze(context.getStartupFailure());
        assertThat(analysis).as("failure analysis of %s", context.getStartupFailure()).isNotNull();
        return analysis;
    }

}
