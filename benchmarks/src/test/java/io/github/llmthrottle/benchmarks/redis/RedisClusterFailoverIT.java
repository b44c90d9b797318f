package io.github.llmthrottle.benchmarks.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.SharedStoreUnavailableException;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.ClientLimits;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.store.BucketKeys;
import io.github.llmthrottle.store.redis.LocalRedis;
import io.github.llmthrottle.store.redis.RedisBucketStore;
import io.github.llmthrottle.time.TimeSource;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three instances sharing one limit through a Redis Cluster of three masters with a
 * replica each ({@link LocalRedis}), the master of the model's slot killed mid-run: the
 * calls each instance made, how they ended, and how many the fleet admitted second by
 * second against the limit, before, during and after the failover. Each instance runs
 * {@value #THREADS} callers in a closed loop of {@code acquire} (waiting at most
 * {@code 200 ms}) and {@code release}, on a {@link RedisBucketStore} of its own over a
 * {@link RedisClusterClient} with Lettuce's default options (no topology refresh but the
 * store's own), at {@value #LIMIT} requests a minute, with {@code on-failure: local}:
 * while the store does without Redis, each instance admits from local buckets of its own
 * (each starting full), so the fleet goes over the limit by up to one bucket per instance
 * for the outage; the figures say by how much. (With {@code reject}, the calls of that
 * time fail instead, with {@link SharedStoreUnavailableException}: the Redis module's
 * {@code RedisClusterTests}.)
 */
class RedisClusterFailoverIT {

    @RegisterExtension
    static final LocalRedis cluster = LocalRedis.cluster();

    private static final int INSTANCES = 3;

    private static final int THREADS = 4;

    private static final long LIMIT = 600;

    private static final int SECONDS = 20;

    private static final int KILL_AT = 6;

    @Test
    void onFailureLocal() throws Exception {
        Result result = run(RedisBucketStore.OnFailure.LOCAL);
        System.out.println(result.report());
        assertThat(result.others).isEmpty();
        assertThat(result.unavailable.sum()).isZero();
    }

    private Result run(RedisBucketStore.OnFailure onFailure) throws Exception {
        String prefix = "llm-throttle-failover-" + UUID.randomUUID();
        String model = "opus";
        String key = prefix + ":" + BucketKeys.model("anthropic", model) + ":requests";
        Result result = new Result(onFailure);
        List<RedisClusterClient> clients = new ArrayList<>();
        List<RedisBucketStore> stores = new ArrayList<>();
        ExecutorService callers = Executors.newCachedThreadPool();
        AtomicBoolean stopped = new AtomicBoolean();
        List<ModelLimiter> limiters = new ArrayList<>();
        try {
            for (int i = 0; i < INSTANCES; i++) {
                RedisClusterClient client = RedisClusterClient
                    .create(cluster.nodes().stream().map((node) -> RedisURI.create("redis://" + node)).toList());
                clients.add(client);
                RedisBucketStore store = new RedisBucketStore(client, prefix, onFailure, Duration.ofMillis(500),
                        Duration.ofSeconds(1), TimeSource.system());
                stores.add(store);
                ModelLimiter limiter = new LimiterRegistry(
                        Map.of("anthropic",
                                new ClientLimits(null, Map.of(model, new ModelLimits(LIMIT, null, null, null)))),
                        100, Duration.ofSeconds(1), (tenant) -> null, store, TimeSource.system())
                    .limiter("anthropic", model);
                limiters.add(limiter);
            }
            // the clock starts once every instance is connected
            long start = System.nanoTime();
            for (ModelLimiter limiter : limiters) {
                for (int t = 0; t < THREADS; t++) {
                    callers.execute(() -> {
                        while (!stopped.get()) {
                            result.call(limiter, start);
                        }
                    });
                }
            }
            TimeUnit.SECONDS.sleep(KILL_AT);
            int master = cluster.masterOf(key);
            long killed = System.nanoTime();
            result.killedAtMillis = (killed - start) / 1_000_000;
            cluster.kill(master);
            cluster.awaitFailover(key, master);
            result.failoverMillis = (System.nanoTime() - killed) / 1_000_000;
            TimeUnit.NANOSECONDS.sleep(Math.max(0, start + TimeUnit.SECONDS.toNanos(SECONDS) - System.nanoTime()));
        }
        finally {
            stopped.set(true);
            callers.shutdown();
            result.allEnded = callers.awaitTermination(30, TimeUnit.SECONDS);
            stores.forEach(RedisBucketStore::close);
            clients.forEach(RedisClusterClient::shutdown);
        }
        return result;
    }

    /** What the calls of one run did. */
    private static final class Result {

        final RedisBucketStore.OnFailure onFailure;

        final AtomicLongArray admittedPerSecond = new AtomicLongArray(SECONDS + 60);

        final LongAdder started = new LongAdder();

        final LongAdder admitted = new LongAdder();

        final LongAdder heldBack = new LongAdder();

        final LongAdder unavailable = new LongAdder();

        final Queue<Throwable> others = new ConcurrentLinkedQueue<>();

        volatile long killedAtMillis;

        volatile long failoverMillis;

        volatile boolean allEnded;

        Result(RedisBucketStore.OnFailure onFailure) {
            this.onFailure = onFailure;
        }

        void call(ModelLimiter limiter, long start) {
            this.started.increment();
            try {
                limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 0, 0, Duration.ofMillis(200)))
                    .release(Permit.Outcome.SUCCESS);
                this.admitted.increment();
                int second = (int) TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
                this.admittedPerSecond.incrementAndGet(Math.min(second, this.admittedPerSecond.length() - 1));
            }
            catch (AdmissionTimeoutException ex) {
                this.heldBack.increment();
            }
            catch (SharedStoreUnavailableException ex) {
                this.unavailable.increment();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                this.others.add(ex);
            }
            catch (RuntimeException ex) {
                this.others.add(ex);
            }
        }

        String report() {
            StringBuilder report = new StringBuilder(String.format(Locale.ROOT,
                    "on-failure %s: %d instances x %d callers, limit %d/min (a bucket of %d, %.0f/s), master "
                            + "killed at %d ms, replica serving %d ms later, all calls ended: %s%n"
                            + "calls %d: admitted %d, held back (200 ms max-wait) %d, "
                            + "SharedStoreUnavailableException %d, other failures %d%n",
                    this.onFailure, INSTANCES, THREADS, LIMIT, LIMIT, LIMIT / 60.0, this.killedAtMillis,
                    this.failoverMillis, this.allEnded, this.started.sum(), this.admitted.sum(), this.heldBack.sum(),
                    this.unavailable.sum(), this.others.size()));
            long fleet = 0;
            for (int second = 0; second < SECONDS; second++) {
                fleet += this.admittedPerSecond.get(second);
                long allowed = LIMIT + LIMIT * (second + 1) / 60;
                report.append(String.format(Locale.ROOT, "  %2d s: admitted %5d, fleet total %6d, limit allows %6d%n",
                        second, this.admittedPerSecond.get(second), fleet, allowed));
            }
            return report.toString();
        }

    }

}
