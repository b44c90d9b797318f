package io.github.llmthrottle.limit;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.llmthrottle.TokenQuotaExceededException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link TokenQuotas} on the {@link RedisQuotaStore} (Redis on 127.0.0.1:6379, or an
 * embedded one; a key prefix of its own per test): the in-memory cases, and two instances
 * sharing one budget.
 */
class RedisQuotaStoreTests extends TokenQuotasTests {

    private final String prefix = "llm-throttle-quota-test-" + UUID.randomUUID();

    private final RedisClient client = RedisClient.create(RedisURI.builder()
        .withHost(TestRedis.HOST)
        .withPort(TestRedis.port())
        .withTimeout(Duration.ofSeconds(2))
        .build());

    @Override
    QuotaStore store() {
        return new RedisQuotaStore(this.client, this.prefix, false, Duration.ofSeconds(2), Duration.ofSeconds(1),
                this.clock);
    }

    @AfterEach
    void deleteKeysAndClose() {
        try (StatefulRedisConnection<String, String> connection = this.client.connect()) {
            List<String> keys = connection.sync().keys(this.prefix + ":*");
            if (!keys.isEmpty()) {
                connection.sync().del(keys.toArray(String[]::new));
            }
        }
        this.client.shutdown();
    }

    @Test
    void twoInstancesShareOneBudget() {
        QuotaSettings settings = modelQuota(new TokenQuota(1_000L, null));
        TokenQuotas first = new TokenQuotas(settings, store(), this.clock);
        TokenQuotas second = new TokenQuotas(settings, store(), this.clock);
        first.reserve("anthropic", "opus", null, 600);
        second.reserve("anthropic", "opus", null, 400);
        assertThatExceptionOfType(TokenQuotaExceededException.class)
            .isThrownBy(() -> first.reserve("anthropic", "opus", null, 1));
        assertThat(second.states(Map.of("anthropic", List.of("opus"))).get(0).used()).isEqualTo(1_000);
    }

    @Test
    void aCounterExpiresADayAfterItsWindow() {
        TokenQuotas quotas = new TokenQuotas(modelQuota(new TokenQuota(1_000L, null)), store(), this.clock);
        quotas.reserve("anthropic", "opus", null, 10);
        try (StatefulRedisConnection<String, String> connection = this.client.connect()) {
            String key = this.prefix + ":{quota}:model:anthropic:opus:day:" + START.toString().substring(0, 10);
            assertThat(connection.sync().get(key)).isEqualTo("10");
            // expires a day after the window's end (on the Redis server's own clock)
            assertThat(connection.sync().pttl(key)).isGreaterThan(Duration.ofDays(1).toMillis());
        }
    }

}
