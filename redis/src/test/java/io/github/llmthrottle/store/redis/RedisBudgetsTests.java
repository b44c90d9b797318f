package io.github.llmthrottle.store.redis;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.llmthrottle.BudgetExceededException;
import io.github.llmthrottle.budget.Budget;
import io.github.llmthrottle.budget.BudgetSettings;
import io.github.llmthrottle.budget.Budgets;
import io.github.llmthrottle.budget.BudgetsTests;
import io.github.llmthrottle.limit.TestRedis;
import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.quota.QuotaStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link Budgets} on the {@link RedisQuotaStore} (Redis on 127.0.0.1:6379, or an embedded
 * one; a key prefix of its own per test): the in-memory cases, and two instances sharing
 * one budget.
 */
class RedisBudgetsTests extends BudgetsTests {

    private final String prefix = "llm-throttle-budget-test-" + UUID.randomUUID();

    private final RedisClient client = RedisClient.create(RedisURI.builder()
        .withHost(TestRedis.HOST)
        .withPort(TestRedis.port())
        .withTimeout(Duration.ofSeconds(2))
        .build());

    private final List<RedisQuotaStore> stores = new ArrayList<>();

    @Override
    protected QuotaStore store() {
        RedisQuotaStore store = new RedisQuotaStore(this.client, this.prefix, false, Duration.ofSeconds(2),
                Duration.ofSeconds(1), this.clock, this.clock);
        this.stores.add(store);
        return store;
    }

    @Override
    protected void corrected() {
        for (RedisQuotaStore store : this.stores) {
            try {
                store.awaitSent();
            }
            catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        }
    }

    @AfterEach
    void deleteKeysAndClose() {
        this.stores.forEach(RedisQuotaStore::close);
        try (StatefulRedisConnection<String, String> connection = this.client.connect()) {
            List<String> keys = connection.sync().keys(this.prefix + ":*");
            if (!keys.isEmpty()) {
                connection.sync().del(keys.toArray(String[]::new));
            }
        }
        this.client.shutdown();
    }

    @Test
    void twoInstancesShareOneBudgetUnderKeysOfTheirOwn() {
        BudgetSettings settings = modelBudget(new Budget(new BigDecimal("0.05"), null));
        Budgets first = budgets(settings);
        Budgets second = budgets(settings);
        // $0.018 each at the estimate
        first.reserve("anthropic", "sonnet", null, 1_000, 1_000);
        second.reserve("anthropic", "sonnet", null, 1_000, 1_000);
        assertThatExceptionOfType(BudgetExceededException.class)
            .isThrownBy(() -> first.reserve("anthropic", "sonnet", null, 1_000, 1_000));
        second.reserve("anthropic", "sonnet", null, 0, 0).settle(new Usage(0, 0));
        assertThat(second.states(Map.of("anthropic", List.of("sonnet"))).get(0).spent()).isEqualByComparingTo("0.036");
        try (StatefulRedisConnection<String, String> connection = this.client.connect()) {
            String key = this.prefix + ":{quota}:budget-model:anthropic:sonnet:day:"
                    + START.toString().substring(0, 10);
            assertThat(connection.sync().get(key)).isEqualTo("36000");
        }
    }

}
