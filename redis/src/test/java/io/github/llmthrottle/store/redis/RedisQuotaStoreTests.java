package io.github.llmthrottle.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.llmthrottle.TokenQuotaExceededException;
import io.github.llmthrottle.limit.TcpForwarder;
import io.github.llmthrottle.limit.TestRedis;
import io.github.llmthrottle.quota.QuotaReservation;
import io.github.llmthrottle.quota.QuotaSettings;
import io.github.llmthrottle.quota.QuotaStore;
import io.github.llmthrottle.quota.TokenQuota;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.quota.TokenQuotasTests;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

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

    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private final List<RedisQuotaStore> stores = new ArrayList<>();

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @Override
    protected QuotaStore store() {
        // the fake clock stands in for the server's, which the counters' windows run on
        RedisQuotaStore store = new RedisQuotaStore(this.client, this.prefix, false, Duration.ofSeconds(2),
                Duration.ofSeconds(1), this.clock, this.clock);
        this.stores.add(store);
        return store;
    }

    /** Corrections are sent without waiting. */
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

    /** What is left once the corrections are answered. */
    @Override
    protected long remaining(TokenQuotas quotas) {
        corrected();
        return super.remaining(quotas);
    }

    @AfterEach
    void deleteKeysAndClose() throws Exception {
        this.stores.forEach(RedisQuotaStore::close);
        for (AutoCloseable closeable : this.closeables) {
            closeable.close();
        }
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

    @Test
    void aSlowReservationFailsOnlyItsOwnCallAndWhatItTookIsGivenBack() throws Exception {
        TcpForwarder forwarder = forwarder();
        forwarder.start();
        // a timeout a loaded machine does not reach on an answered command, and well
        // within the patience of the check of the held one
        RedisQuotaStore store = store(forwarder.port(), Duration.ofSeconds(2));
        TokenQuotas quotas = new TokenQuotas(modelQuota(new TokenQuota(1_000L, null)), store, this.clock);
        quotas.reserve("anthropic", "opus", null, 100);
        forwarder.hold();
        long start = System.nanoTime();
        // counted in this instance while Redis does not answer in time
        quotas.reserve("anthropic", "opus", null, 200);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(PATIENCE);
        forwarder.resume();
        // the late reservation answers, and what it took is given back
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(usedInRedis()).isEqualTo(100));
        // one slow command is no outage: the next reservation goes to Redis
        quotas.reserve("anthropic", "opus", null, 50);
        assertThat(usedInRedis()).isEqualTo(150);
        assertThat(store.isUnavailable()).isFalse();
    }

    @Test
    void readsOfTheCountsNeverWaitForRedis() throws Exception {
        TcpForwarder forwarder = forwarder();
        forwarder.start();
        // a read that waited for the held command would wait far longer than the
        // patience of the check, however fast the machine
        RedisQuotaStore store = store(forwarder.port(), PATIENCE.multipliedBy(6));
        TokenQuotas quotas = new TokenQuotas(modelQuota(new TokenQuota(1_000L, null)), store, this.clock);
        quotas.reserve("anthropic", "opus", null, 100);
        forwarder.hold();
        try {
            long start = System.nanoTime();
            // as a gauge, the health indicator or the endpoint read it: the last answer
            long used = quotas.statesOfModel("anthropic", "opus").get(0).used();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(PATIENCE);
            assertThat(used).isEqualTo(100);
        }
        finally {
            forwarder.resume();
        }
    }

    @Test
    void aCorrectionGoesToTheStoreTheReservationWasTakenFrom() throws Exception {
        TcpForwarder forwarder = forwarder();
        RedisQuotaStore store = store(forwarder.port(), Duration.ofSeconds(2));
        TokenQuotas quotas = new TokenQuotas(modelQuota(new TokenQuota(1_000L, null)), store, this.clock);
        // Redis unreachable: counted in this instance
        QuotaReservation local = quotas.reserve("anthropic", "opus", null, 600);
        forwarder.start();
        this.clock.advance(Duration.ofSeconds(1));
        QuotaReservation shared = quotas.reserve("anthropic", "opus", null, 100);
        assertThat(usedInRedis()).isEqualTo(100);
        // Redis answers again, but what this instance counted is corrected here
        local.settle(0);
        shared.settle(150);
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(usedInRedis()).isEqualTo(150));
    }

    @Test
    void aStoreBuiltOnABucketStoreSharesItsConnectionAndOutage() throws Exception {
        TcpForwarder forwarder = forwarder();
        forwarder.start();
        RedisBucketStore buckets = new RedisBucketStore(client(forwarder.port()), this.prefix,
                RedisBucketStore.OnFailure.REJECT, Duration.ofSeconds(2), Duration.ofSeconds(5), this.clock,
                this.clock);
        this.closeables.add(buckets);
        RedisQuotaStore store = new RedisQuotaStore(buckets, this.prefix);
        this.stores.add(store);
        TokenQuotas quotas = new TokenQuotas(modelQuota(new TokenQuota(1_000L, null)), store, this.clock);
        quotas.reserve("anthropic", "opus", null, 100);
        assertThat(usedInRedis()).isEqualTo(100);
        forwarder.stop();
        assertThatExceptionOfType(io.github.llmthrottle.SharedStoreUnavailableException.class)
            .isThrownBy(() -> quotas.reserve("anthropic", "opus", null, 100));
        assertThat(buckets.isUnavailable()).isTrue();
    }

    private @Nullable Long usedInRedis() {
        try (StatefulRedisConnection<String, String> connection = this.client.connect()) {
            String used = connection.sync()
                .get(this.prefix + ":{quota}:model:anthropic:opus:day:" + START.toString().substring(0, 10));
            return (used != null) ? Long.parseLong(used) : null;
        }
    }

    private TcpForwarder forwarder() throws Exception {
        TcpForwarder forwarder = new TcpForwarder(TcpForwarder.freePort(), TestRedis.port());
        this.closeables.add(forwarder);
        return forwarder;
    }

    private RedisQuotaStore store(int port, Duration timeout) {
        RedisQuotaStore store = new RedisQuotaStore(client(port), this.prefix, false, timeout, Duration.ofSeconds(1),
                this.clock, this.clock);
        this.stores.add(store);
        return store;
    }

    private RedisClient client(int port) {
        RedisClient client = RedisClient.create(
                RedisURI.builder().withHost(TestRedis.HOST).withPort(port).withTimeout(Duration.ofSeconds(2)).build());
        this.closeables.add(client::shutdown);
        return client;
    }

}
