package io.github.llmthrottle.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.SharedStoreUnavailableException;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.ClientLimits;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.limit.TenantLimits;
import io.github.llmthrottle.quota.QuotaSettings;
import io.github.llmthrottle.quota.QuotaSettings.ClientQuotas;
import io.github.llmthrottle.quota.TokenQuota;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.time.TimeSource;
import io.lettuce.core.AbstractRedisClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Calls of instances sharing one Redis (a cluster, or a master behind a Sentinel), run
 * from a few threads each until stopped: each call is admitted by its model's limiter
 * (model and tenant buckets) and reserves its model's, client's and tenant's quotas, then
 * settles both. Counts every call that returned, failed with the clear exception of a
 * shared store that cannot be reached ({@link SharedStoreUnavailableException}), or
 * failed otherwise.
 */
final class FleetLoad implements AutoCloseable {

    static final String CLIENT = "anthropic";

    static final String MODEL = "opus";

    static final String TENANT = "acme";

    /** Generous limits: the calls are never held back by them, only by Redis. */
    static final ModelLimits LIMITS = new ModelLimits(1_000_000L, 1_000_000_000L, 1_000_000_000L, null);

    static final TokenQuota QUOTA = new TokenQuota(1_000_000_000L, 10_000_000_000L);

    static final QuotaSettings QUOTAS = new QuotaSettings(
            Map.of(CLIENT, new ClientQuotas(QUOTA, TokenQuota.NONE, Map.of(MODEL, QUOTA))), QUOTA, Map.of());

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final ExecutorService workers = Executors.newCachedThreadPool();

    private final AtomicBoolean stopped = new AtomicBoolean();

    private final List<Instance> instances = new ArrayList<>();

    /**
     * Runs the calls of two instances, one doing without Redis on local buckets, the
     * other rejecting calls, through a failover of Redis mid-run, and checks that no call
     * was lost: each returned or failed with {@link SharedStoreUnavailableException}, and
     * none of the first failed; and that after the failover both call through Redis
     * again.
     * @param clients a new Lettuce client for each instance
     * @param prefix the key prefix
     * @param failover kills a master, and waits until another has taken over
     */
    static void assertNoCallLost(Supplier<AbstractRedisClient> clients, String prefix, Runnable failover)
            throws InterruptedException {
        try (FleetLoad load = new FleetLoad()) {
            Instance local = load.start("local", clients.get(), prefix, RedisBucketStore.OnFailure.LOCAL, 2);
            Instance reject = load.start("reject", clients.get(), prefix, RedisBucketStore.OnFailure.REJECT, 2);
            await().atMost(PATIENCE).until(() -> local.returned.get() > 20 && reject.returned.get() > 20);
            failover.run();
            long localBefore = local.returned.get();
            long rejectBefore = reject.returned.get();
            await().atMost(PATIENCE).untilAsserted(() -> {
                assertThat(local.buckets.isUnavailable()).isFalse();
                assertThat(reject.buckets.isUnavailable()).isFalse();
                assertThat(local.returned.get()).isGreaterThan(localBefore + 20);
                assertThat(reject.returned.get()).isGreaterThan(rejectBefore + 20);
            });
            assertThat(load.stop()).as("every call ended").isTrue();
            System.out.println("Calls through the failover: " + local + ", " + reject);
            for (Instance instance : List.of(local, reject)) {
                assertThat(instance.ended()).as(instance.toString()).isEqualTo(instance.started.get());
                assertThat(instance.otherFailures).as(instance.toString()).isEmpty();
            }
            assertThat(local.unavailable).as("with on-failure local no call fails").hasValue(0);
        }
    }

    /**
     * Starts an instance's calls.
     * @param name the instance's name, for messages
     * @param client the Lettuce client to connect with
     * @param prefix the key prefix
     * @param onFailure what the instance does without Redis
     * @param threads how many callers
     * @return the instance
     */
    Instance start(String name, AbstractRedisClient client, String prefix, RedisBucketStore.OnFailure onFailure,
            int threads) {
        RedisBucketStore buckets = new RedisBucketStore(client, prefix, onFailure, Duration.ofMillis(500),
                Duration.ofMillis(500), TimeSource.system());
        RedisQuotaStore quotaStore = new RedisQuotaStore(buckets, prefix);
        LimiterRegistry registry = new LimiterRegistry(Map.of(CLIENT, new ClientLimits(null, Map.of(MODEL, LIMITS))),
                1_000, Duration.ofSeconds(30), (tenant) -> new TenantLimits(1_000_000L, null, null), buckets,
                TimeSource.system());
        Instance instance = new Instance(name, buckets, quotaStore, registry.limiter(CLIENT, MODEL),
                new TokenQuotas(QUOTAS, quotaStore, TimeSource.system().clock()));
        this.instances.add(instance);
        for (int i = 0; i < threads; i++) {
            this.workers.execute(() -> {
                while (!this.stopped.get()) {
                    instance.call();
                }
            });
        }
        return instance;
    }

    /**
     * Stops the calls, and waits for the calls in flight to end.
     * @return whether every caller ended within the time given
     */
    boolean stop() throws InterruptedException {
        this.stopped.set(true);
        this.workers.shutdown();
        return this.workers.awaitTermination(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        stop();
        this.workers.shutdownNow();
        for (Instance instance : this.instances) {
            instance.quotaStore.close();
            instance.buckets.close();
        }
    }

    /** One instance of the fleet and what its calls did. */
    static final class Instance {

        final String name;

        final RedisBucketStore buckets;

        final RedisQuotaStore quotaStore;

        private final ModelLimiter limiter;

        private final TokenQuotas quotas;

        final AtomicLong started = new AtomicLong();

        final AtomicLong returned = new AtomicLong();

        final AtomicLong unavailable = new AtomicLong();

        final Queue<Throwable> otherFailures = new ConcurrentLinkedQueue<>();

        Instance(String name, RedisBucketStore buckets, RedisQuotaStore quotaStore, ModelLimiter limiter,
                TokenQuotas quotas) {
            this.name = name;
            this.buckets = buckets;
            this.quotaStore = quotaStore;
            this.limiter = limiter;
            this.quotas = quotas;
        }

        /** Calls that ended, one way or another. */
        long ended() {
            return this.returned.get() + this.unavailable.get() + this.otherFailures.size();
        }

        void call() {
            this.started.incrementAndGet();
            try {
                Permit permit = this.limiter
                    .acquire(new AdmissionRequest(Priority.NORMAL, TENANT, 100, 50, Duration.ofSeconds(10)));
                try {
                    this.quotas.reserve(CLIENT, MODEL, TENANT, 150).settle(120);
                    permit.settle(80, 40);
                }
                finally {
                    permit.release(Permit.Outcome.SUCCESS);
                }
                this.returned.incrementAndGet();
            }
            catch (SharedStoreUnavailableException ex) {
                this.unavailable.incrementAndGet();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                this.otherFailures.add(ex);
            }
            catch (RuntimeException ex) {
                this.otherFailures.add(ex);
            }
        }

        @Override
        public String toString() {
            return this.name + "[started=" + this.started + ", returned=" + this.returned + ", unavailable="
                    + this.unavailable + ", otherFailures=" + this.otherFailures + "]";
        }

    }

}
