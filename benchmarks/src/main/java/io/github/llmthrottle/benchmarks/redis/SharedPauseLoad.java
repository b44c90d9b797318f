package io.github.llmthrottle.benchmarks.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.ClientLimits;
import io.github.llmthrottle.limit.LimiterOptions;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.store.redis.RedisBucketStore;
import io.github.llmthrottle.time.TimeSource;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * Three instances sharing one Redis server, each with {@code --threads} callers sending
 * calls in a closed loop (admission, a 5 ms call, release) to one model at 6,000 requests
 * a minute; after {@code --warmup} seconds one instance is told to wait
 * {@code --retry-after} seconds (as by a 429 with {@code retry-after}) and pauses the
 * model. Counts the calls each instance sends after that pause was handled and before it
 * ends, and of those the ones sent over a millisecond after Redis held the pause (there
 * should be none: the others were granted by Redis before the pause reached it, like
 * calls already out when the 429 came), and how the calls after it are spread out: the
 * sends in the first 100 ms after it and the shortest gap between two of them across the
 * fleet.
 *
 * <p>
 * With {@code --unshared} the stores keep the pause to the instance that was told to
 * wait, as before pauses were shared. Run with a Redis server of its own:
 * {@code --redis-port} (default 6391) on 127.0.0.1.
 */
public final class SharedPauseLoad {

    private static final int INSTANCES = 3;

    private SharedPauseLoad() {
    }

    public static void main(String[] args) throws Exception {
        int port = Unshared.intOption(args, "--redis-port", 6391);
        int threads = Unshared.intOption(args, "--threads", 4);
        long warmupMillis = Unshared.intOption(args, "--warmup", 2) * 1000L;
        long retryAfterMillis = Unshared.intOption(args, "--retry-after", 5) * 1000L;
        boolean unshared = List.of(args).contains("--unshared");
        String prefix = "llm-throttle-bench-" + UUID.randomUUID();
        List<RedisClient> clients = new ArrayList<>();
        List<RedisBucketStore> stores = new ArrayList<>();
        List<ModelLimiter> limiters = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            RedisClient client = RedisClient.create(
                    RedisURI.builder().withHost("127.0.0.1").withPort(port).withTimeout(Duration.ofSeconds(2)).build());
            clients.add(client);
            RedisBucketStore store = new RedisBucketStore(client, prefix, RedisBucketStore.OnFailure.REJECT,
                    Duration.ofSeconds(1), Duration.ofSeconds(2), TimeSource.system());
            stores.add(store);
            limiters.add(new LimiterRegistry(
                    Map.of("anthropic",
                            new ClientLimits(null, Map.of("opus", new ModelLimits(6_000L, null, null, null)))),
                    1_000, Duration.ofSeconds(30), (tenant) -> null, unshared ? new Unshared(store) : store,
                    TimeSource.system(), LimiterOptions.WITHOUT_SLOW_START)
                .limiter("anthropic", "opus"));
        }
        ConcurrentLinkedQueue<long[]> sends = new ConcurrentLinkedQueue<>();
        long start = System.nanoTime();
        long end = start + TimeUnit.MILLISECONDS.toNanos(warmupMillis + retryAfterMillis + 3_000);
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            for (int t = 0; t < threads; t++) {
                int instance = i;
                Thread caller = new Thread(() -> call(limiters.get(instance), instance, end, sends));
                caller.start();
                callers.add(caller);
            }
        }
        Thread.sleep(warmupMillis);
        long paused;
        long recorded;
        try (StatefulRedisConnection<String, String> connection = clients.get(0).connect()) {
            limiters.get(0).pause(Duration.ofMillis(retryAfterMillis));
            paused = System.nanoTime();
            // when Redis holds the pause, as far as a poll can tell (at once if not
            // shared)
            while (!unshared && connection.sync().exists(prefix + ":{anthropic:opus}:pause") == 0) {
                Thread.onSpinWait();
            }
            recorded = System.nanoTime();
        }
        long pauseEnd = paused + TimeUnit.MILLISECONDS.toNanos(retryAfterMillis);
        long settled = recorded + TimeUnit.MILLISECONDS.toNanos(1);
        for (Thread caller : callers) {
            caller.join();
        }
        long[] during = new long[INSTANCES];
        long[] afterRecorded = new long[INSTANCES];
        List<Long> after = new ArrayList<>();
        for (long[] send : sends) {
            if (send[1] > paused && send[1] < pauseEnd) {
                during[(int) send[0]]++;
                afterRecorded[(int) send[0]] += (send[1] > settled) ? 1 : 0;
            }
            else if (send[1] >= pauseEnd && send[1] < pauseEnd + TimeUnit.MILLISECONDS.toNanos(100)) {
                after.add(send[1]);
            }
        }
        after.sort(Long::compare);
        long shortestGap = Long.MAX_VALUE;
        for (int i = 1; i < after.size(); i++) {
            shortestGap = Math.min(shortestGap, after.get(i) - after.get(i - 1));
        }
        System.out.printf(Locale.ROOT, "%d instances x %d callers, retry-after %d ms on instance 0%s%n", INSTANCES,
                threads, retryAfterMillis, unshared ? ", pause not shared" : "");
        for (int i = 0; i < INSTANCES; i++) {
            System.out.printf(Locale.ROOT,
                    "instance %d: %d calls sent during the pause, %d of them 1 ms after Redis held it%n", i, during[i],
                    afterRecorded[i]);
        }
        System.out.printf(Locale.ROOT, "pause held by Redis %.2f ms after it was handled%n", (recorded - paused) / 1e6);
        System.out.printf(Locale.ROOT, "first 100 ms after the pause: %d calls, shortest gap %.1f ms%n", after.size(),
                (shortestGap == Long.MAX_VALUE) ? Double.NaN : shortestGap / 1e6);
        stores.forEach(RedisBucketStore::close);
        try (StatefulRedisConnection<String, String> connection = clients.get(0).connect()) {
            List<String> keys = connection.sync().keys(prefix + ":*");
            if (!keys.isEmpty()) {
                connection.sync().del(keys.toArray(String[]::new));
            }
        }
        clients.forEach(RedisClient::shutdown);
    }

    private static void call(ModelLimiter limiter, int instance, long end, ConcurrentLinkedQueue<long[]> sends) {
        AdmissionRequest request = new AdmissionRequest(Priority.NORMAL, null, 0, 0, Duration.ofSeconds(30));
        while (System.nanoTime() < end) {
            try {
                Permit permit = limiter.acquire(request);
                sends.add(new long[] { instance, System.nanoTime() });
                Thread.sleep(5);
                permit.release(Permit.Outcome.IGNORED);
            }
            catch (LlmThrottleException ex) {
                // not admitted in time: the next call
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

}
