package io.github.llmthrottle.store.redis;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.github.llmthrottle.TokenQuotaExceededException;
import io.github.llmthrottle.limit.TestRedis;
import io.github.llmthrottle.quota.QuotaSettings;
import io.github.llmthrottle.quota.QuotaWindow;
import io.github.llmthrottle.quota.TokenQuota;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.quota.TokenQuotasTests;
import io.github.llmthrottle.time.FakeClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * One clock for the fleet: instances whose clocks are off against the real Redis server
 * (a fake instance clock set minutes or a day away from the server's {@code TIME}) count
 * their quotas in the server's day and month, expire them by the server's time, and order
 * the limits they set by the server's time.
 */
class RedisServerTimeTests {

    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private final String prefix = "llm-throttle-time-test-" + UUID.randomUUID();

    private final RedisClient client = RedisClient.create(RedisURI.builder()
        .withHost(TestRedis.HOST)
        .withPort(TestRedis.port())
        .withTimeout(Duration.ofSeconds(2))
        .build());

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : this.closeables) {
            closeable.close();
        }
        TestRedis.deleteKeys(this.prefix);
        this.client.shutdown();
    }

    @Test
    void instancesWhoseClocksAreOffCountInTheServersWindow() {
        QuotaSettings settings = TokenQuotasTests.modelQuota(new TokenQuota(10_000L, 100_000L));
        Instant server = serverTime();
        // one instance on time, one three minutes ahead, one a whole day behind: at
        // midnight, an instance a little behind is still in yesterday
        List<FakeClock> clocks = List.of(new FakeClock(server), new FakeClock(server.plus(Duration.ofMinutes(3))),
                new FakeClock(server.minus(Duration.ofDays(1))));
        List<TokenQuotas> instances = new ArrayList<>();
        for (FakeClock clock : clocks) {
            RedisQuotaStore store = new RedisQuotaStore(this.client, this.prefix, false, Duration.ofSeconds(2),
                    Duration.ofSeconds(1), clock);
            this.closeables.add(store);
            instances.add(new TokenQuotas(settings, store, clock));
        }
        for (TokenQuotas quotas : instances) {
            quotas.reserve("anthropic", "opus", null, 100);
        }
        Instant after = serverTime();
        // the days the server was in during the test (two only if it ran over midnight)
        Set<String> days = Stream.of(server, after)
            .map((instant) -> QuotaWindow.DAY.periodOf(instant).id())
            .collect(Collectors.toSet());
        try (StatefulRedisConnection<String, String> connection = this.client.connect()) {
            List<String> keys = connection.sync().keys(this.prefix + ":{quota}:model:anthropic:opus:day:*");
            assertThat(keys).isNotEmpty()
                .allSatisfy((key) -> assertThat(days).contains(key.substring(key.lastIndexOf(':') + 1)));
            long total = 0;
            for (String key : keys) {
                total += Long.parseLong(connection.sync().get(key));
                // expires a day after the end of the server's day, whatever the clocks
                LocalDate day = LocalDate.parse(key.substring(key.lastIndexOf(':') + 1));
                assertThat(connection.sync().pexpiretime(key))
                    .isEqualTo(day.plusDays(2).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli());
            }
            assertThat(total).isEqualTo(300);
            Set<String> months = Stream.of(server, after)
                .map((instant) -> QuotaWindow.MONTH.periodOf(instant).id())
                .collect(Collectors.toSet());
            assertThat(connection.sync().keys(this.prefix + ":{quota}:model:anthropic:opus:month:*")).isNotEmpty()
                .allSatisfy((key) -> assertThat(months).contains(key.substring(key.lastIndexOf(':') + 1)));
        }
        if (days.size() == 1) {
            // what each instance shows of the quota in force is the server's window, read
            // again once the last answer is a second old
            clocks.forEach((clock) -> clock.advance(Duration.ofSeconds(2)));
            for (TokenQuotas quotas : instances) {
                await().atMost(PATIENCE)
                    .untilAsserted(
                            () -> assertThat(quotas.statesOfModel("anthropic", "opus").get(0).used()).isEqualTo(300));
            }
        }
    }

    @Test
    void aCorrectionGoesToTheWindowOfItsReservation() throws Exception {
        QuotaSettings settings = TokenQuotasTests.modelQuota(new TokenQuota(10_000L, null));
        FakeClock clock = new FakeClock(serverTime().minus(Duration.ofDays(1)));
        RedisQuotaStore store = new RedisQuotaStore(this.client, this.prefix, false, Duration.ofSeconds(2),
                Duration.ofSeconds(1), clock);
        this.closeables.add(store);
        TokenQuotas quotas = new TokenQuotas(settings, store, clock);
        quotas.reserve("anthropic", "opus", null, 100).settle(40);
        store.awaitSent();
        try (StatefulRedisConnection<String, String> connection = this.client.connect()) {
            List<String> keys = connection.sync().keys(this.prefix + ":{quota}:model:anthropic:opus:day:*");
            assertThat(keys).hasSize(1);
            assertThat(connection.sync().get(keys.get(0))).isEqualTo("40");
        }
    }

    @Test
    void aQuotaUsedUpResetsWhenTheServersWindowEnds() {
        QuotaSettings settings = TokenQuotasTests.modelQuota(new TokenQuota(1_000L, null));
        // the server two hours before midnight, the instance three hours ahead of it: in
        // its own next day, which would reset in 21 hours (tomorrow, as the counters
        // expire by Redis's own time)
        Instant midnight = QuotaWindow.DAY.periodOf(serverTime()).end().plus(Duration.ofDays(1));
        FakeClock server = new FakeClock(midnight.minus(Duration.ofHours(2)));
        FakeClock instance = new FakeClock(midnight.plus(Duration.ofHours(1)));
        RedisQuotaStore store = new RedisQuotaStore(this.client, this.prefix, false, Duration.ofSeconds(2),
                Duration.ofSeconds(1), instance, server);
        this.closeables.add(store);
        TokenQuotas quotas = new TokenQuotas(settings, store, instance);
        quotas.reserve("anthropic", "opus", null, 900);
        assertThatExceptionOfType(TokenQuotaExceededException.class)
            .isThrownBy(() -> quotas.reserve("anthropic", "opus", null, 200))
            .satisfies((ex) -> assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofHours(2)))
            .withMessageContaining("resetting at " + midnight);
    }

    @Test
    void limitsAreVersionedByTheServersTime() {
        // an instance ten minutes ahead would otherwise win every limit change for ten
        // minutes, whoever set the later one
        Instant server = serverTime();
        FakeClock ahead = new FakeClock(server.plus(Duration.ofMinutes(10)));
        RedisBucketStore store = new RedisBucketStore(this.client, this.prefix, RedisBucketStore.OnFailure.LOCAL,
                Duration.ofSeconds(2), Duration.ofSeconds(1), ahead);
        this.closeables.add(store);
        long version = store.nextVersion();
        assertThat(version).isBetween(server.toEpochMilli(), serverTime().toEpochMilli() + 1_000);
    }

    private Instant serverTime() {
        try (StatefulRedisConnection<String, String> connection = this.client.connect()) {
            List<Object> time = connection.sync().eval("return redis.call('TIME')", ScriptOutputType.MULTI);
            return Instant.ofEpochSecond(Long.parseLong(time.get(0).toString()),
                    Long.parseLong(time.get(1).toString()) * 1000);
        }
    }

}
