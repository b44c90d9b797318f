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
 * model: {@link ModelLimiter#pause} returns once Redis holds the pause, as the handling
 * of a 429 does. Each call records when its admission started and when it was sent (its
 * permit in hand). Of the calls sent during the pause it counts those whose admission
 * started once the 429 was handled (there should be none: every take from then on meets
 * the pause in Redis), and apart from them those whose admission started before (in
 * flight at the 429: granted before the pause reached Redis, or waiting in a take then);
 * and how the calls after the pause are spread out: the sends in the first 100 ms after
 * it and the shortest gap between two of them across the fleet.
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
        ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
        long start = System.nanoTime();
        long end = start + TimeUnit.MILLISECONDS.toNanos(warmupMillis + retryAfterMillis + 3_000);
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            for (int t = 0; t < threads; t++) {
                int instance = i;
                Thread caller = new Thread(() -> call(limiters.get(instance), instance, end, calls));
                caller.start();
                callers.add(caller);
            }
        }
        Thread.sleep(warmupMillis);
        // the 429 arrives, and its handling returns once Redis holds the pause
        long arrived = System.nanoTime();
        limiters.get(0).pause(Duration.ofMillis(retryAfterMillis));
        long handled = System.nanoTime();
        long pauseEnd = arrived + TimeUnit.MILLISECONDS.toNanos(retryAfterMillis);
        for (Thread caller : callers) {
            caller.join();
        }
        long[] late = new long[INSTANCES];
        long[] inFlight = new long[INSTANCES];
        long[] inFlightSentAfter = new long[INSTANCES];
        List<Long> after = new ArrayList<>();
        for (Call call : calls) {
            if (call.sent() > arrived && call.sent() < pauseEnd) {
                if (call.started() > handled) {
                    late[call.instance()]++;
                }
                else {
                    inFlight[call.instance()]++;
                    inFlightSentAfter[call.instance()] += (call.sent() > handled) ? 1 : 0;
                }
            }
            else if (call.sent() >= pauseEnd && call.sent() < pauseEnd + TimeUnit.MILLISECONDS.toNanos(100)) {
                after.add(call.sent());
            }
        }
        after.sort(Long::compare);
        long shortestGap = Long.MAX_VALUE;
        for (int i = 1; i < after.size(); i++) {
            shortestGap = Math.min(shortestGap, after.get(i) - after.get(i - 1));
        }
        System.out.printf(Locale.ROOT, "%d instances x %d callers, retry-after %d ms on instance 0%s; %d calls%n",
                INSTANCES, threads, retryAfterMillis, unshared ? ", pause not shared" : "", calls.size());
        for (int i = 0; i < INSTANCES; i++) {
            System.out.printf(Locale.ROOT,
                    "instance %d: sent during the pause: %d whose admission started after the 429 was handled,"
                            + " %d in flight at the 429 (%d of them sent after it was handled)%n",
                    i, late[i], inFlight[i], inFlightSentAfter[i]);
        }
        System.out.printf(Locale.ROOT, "the 429 handled %.2f ms after it arrived (%s)%n", (handled - arrived) / 1e6,
                unshared ? "the pause not shared" : "once Redis held the pause");
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

    private static void call(ModelLimiter limiter, int instance, long end, ConcurrentLinkedQueue<Call> calls) {
        AdmissionRequest request = new AdmissionRequest(Priority.NORMAL, null, 0, 0, Duration.ofSeconds(30));
        while (System.nanoTime() < end) {
            long started = System.nanoTime();
            try {
                Permit permit = limiter.acquire(request);
                calls.add(new Call(instance, started, System.nanoTime()));
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

    /**
     * One call sent.
     *
     * @param instance the instance that sent it
     * @param started when its admission started ({@link System#nanoTime()})
     * @param sent when it was admitted, its permit in hand
     */
    private record Call(int instance, long started, long sent) {
    }

}
