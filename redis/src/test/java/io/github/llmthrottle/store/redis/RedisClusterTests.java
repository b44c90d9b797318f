package io.github.llmthrottle.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.TokenQuotaExceededException;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.ClientLimits;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.limit.TenantLimits;
import io.github.llmthrottle.quota.QuotaSettings;
import io.github.llmthrottle.quota.TokenQuota;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.quota.TokenQuotasTests;
import io.github.llmthrottle.store.BucketKeys;
import io.github.llmthrottle.time.TimeSource;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The Redis stores on a real Redis Cluster of three masters with a replica each
 * ({@link LocalRedis}), through a Lettuce {@link RedisClusterClient} with its default
 * options (no periodic or adaptive topology refresh, as Spring Boot builds it by
 * default): every key of one admission and the quota counters of one call in one slot,
 * buckets and quotas shared through the cluster, and a master killed mid-run.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterTests {

    @RegisterExtension
    static final LocalRedis cluster = LocalRedis.cluster();

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final String prefix = "llm-throttle-cluster-test-" + UUID.randomUUID();

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : this.closeables) {
            closeable.close();
        }
    }

    @Test
    void theKeysOfOneAdmissionAndTheQuotaCountersOfOneCallShareOneSlot() throws InterruptedException {
        RedisClusterClient client = client();
        RedisBucketStore store = new RedisBucketStore(client, this.prefix, RedisBucketStore.OnFailure.REJECT,
                Duration.ofSeconds(2), Duration.ofSeconds(1), TimeSource.system());
        this.closeables.add(store);
        RedisQuotaStore quotaStore = new RedisQuotaStore(store, this.prefix);
        ModelLimiter limiter = registry(store, new ModelLimits(1_000L, 1_000_000L, 1_000_000L, null),
                new TenantLimits(100L, 100_000L, 100_000L))
            .limiter(FleetLoad.CLIENT, FleetLoad.MODEL);
        acquire(limiter).release(Permit.Outcome.SUCCESS);
        store.pause(BucketKeys.model(FleetLoad.CLIENT, FleetLoad.MODEL), Duration.ofMillis(100), Duration.ZERO);
        new TokenQuotas(FleetLoad.QUOTAS, quotaStore, TimeSource.system().clock())
            .reserve(FleetLoad.CLIENT, FleetLoad.MODEL, FleetLoad.TENANT, 10)
            .settle(5);
        List<String> admission = new ArrayList<>();
        await().atMost(PATIENCE).untilAsserted(() -> {
            admission.clear();
            admission.addAll(keys(client, this.prefix + ":{anthropic:opus}*"));
            // the model's and the tenant's buckets, and the model's pause
            assertThat(admission).anyMatch((key) -> key.contains(":tenant:"))
                .anyMatch((key) -> key.endsWith(":pause"))
                .hasSizeGreaterThan(4);
        });
        List<String> quotas = keys(client, this.prefix + ":{quota}:*");
        // model, client and tenant, each by day and by month
        assertThat(quotas).hasSize(6);
        assertThat(admission.stream().map(cluster::slotOf).distinct()).hasSize(1);
        assertThat(quotas.stream().map(cluster::slotOf).distinct()).hasSize(1);
    }

    @Test
    void instancesShareTheBucketsAndTheQuotasThroughTheCluster() throws Exception {
        RedisClusterClient client = client();
        List<ModelLimiter> limiters = new ArrayList<>();
        List<TokenQuotas> quotas = new ArrayList<>();
        QuotaSettings settings = TokenQuotasTests.modelQuota(new TokenQuota(1_000L, null));
        for (int i = 0; i < 2; i++) {
            RedisBucketStore store = new RedisBucketStore(client, this.prefix, RedisBucketStore.OnFailure.REJECT,
                    Duration.ofSeconds(2), Duration.ofSeconds(1), TimeSource.system());
            this.closeables.add(store);
            // two requests a minute: none refills while the test runs
            limiters.add(registry(store, new ModelLimits(2L, null, null, null), null).limiter(FleetLoad.CLIENT,
                    FleetLoad.MODEL));
            quotas.add(new TokenQuotas(settings, new RedisQuotaStore(store, this.prefix), TimeSource.system().clock()));
        }
        acquire(limiters.get(0)).release(Permit.Outcome.SUCCESS);
        acquire(limiters.get(1)).release(Permit.Outcome.SUCCESS);
        for (ModelLimiter limiter : limiters) {
            assertThatExceptionOfType(AdmissionTimeoutException.class)
                .isThrownBy(() -> limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 0, 0, Duration.ZERO)));
        }
        quotas.get(0).reserve(FleetLoad.CLIENT, FleetLoad.MODEL, null, 600);
        quotas.get(1).reserve(FleetLoad.CLIENT, FleetLoad.MODEL, null, 400);
        assertThatExceptionOfType(TokenQuotaExceededException.class)
            .isThrownBy(() -> quotas.get(0).reserve(FleetLoad.CLIENT, FleetLoad.MODEL, null, 1));
    }

    @Test
    @Order(Integer.MAX_VALUE) // last: the master it kills stays down for the class
    void aMasterKilledMidRunLosesNoCall() throws Exception {
        // each instance on a client of its own, as separate applications are
        String modelKey = this.prefix + ":" + BucketKeys.model(FleetLoad.CLIENT, FleetLoad.MODEL) + ":requests";
        FleetLoad.assertNoCallLost(this::client, this.prefix, () -> {
            int master = cluster.masterOf(modelKey);
            cluster.kill(master);
            cluster.awaitFailover(modelKey, master);
        });
    }

    @Test
    void bootsClusterSettingsConnectTheStoresThroughAClusterClient() {
        BootRedis.runner(this.prefix, "spring.data.redis.cluster.nodes=" + String.join(",", cluster.nodes()))
            .run((context) -> {
                assertThat(context.getBean(LettuceConnectionFactory.class).getNativeClient())
                    .isInstanceOf(RedisClusterClient.class);
                BootRedis.callOnce(context);
                assertThat(keys(client(), this.prefix + ":*")).contains(this.prefix + ":{anthropic:opus}:requests")
                    .anyMatch((key) -> key.startsWith(this.prefix + ":{quota}:model:anthropic:opus:day:"));
            });
    }

    private RedisClusterClient client() {
        List<RedisURI> seeds = cluster.nodes()
            .stream()
            .map((node) -> RedisURI.create("redis://" + node))
            .peek((uri) -> uri.setTimeout(Duration.ofSeconds(2)))
            .toList();
        RedisClusterClient client = RedisClusterClient.create(seeds);
        this.closeables.add(client::shutdown);
        return client;
    }

    private static LimiterRegistry registry(RedisBucketStore store, ModelLimits limits,
            @Nullable TenantLimits tenantLimits) {
        return new LimiterRegistry(Map.of(FleetLoad.CLIENT, new ClientLimits(null, Map.of(FleetLoad.MODEL, limits))),
                100, Duration.ofSeconds(10), (tenant) -> tenantLimits, store, TimeSource.system());
    }

    private static Permit acquire(ModelLimiter limiter) throws InterruptedException {
        return limiter
            .acquire(new AdmissionRequest(Priority.NORMAL, FleetLoad.TENANT, 100, 50, Duration.ofSeconds(10)));
    }

    private static List<String> keys(RedisClusterClient client, String pattern) {
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            // KEYS on every master
            return connection.sync().keys(pattern);
        }
    }

}
