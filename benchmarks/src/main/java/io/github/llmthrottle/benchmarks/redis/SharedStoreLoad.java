package io.github.llmthrottle.benchmarks.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.ClientLimits;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.limit.TenantLimits;
import io.github.llmthrottle.store.BucketStore;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.store.redis.RedisBucketStore;
import io.github.llmthrottle.time.TimeSource;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import org.jspecify.annotations.Nullable;

/**
 * Three application instances sharing one Redis server: what an admission costs with the
 * Redis bucket store against the in-memory one, and whether the instances together stay
 * at one model's limit.
 *
 * <p>
 * Each instance is a {@link LimiterRegistry} (what every {@code ThrottledClient} of an
 * application admits through) on a {@link RedisBucketStore} with its own
 * {@link RedisClient} and connection, all three on the same Redis server; the in-memory
 * runs give each instance a {@link LocalBucketStore} of its own. Every instance runs
 * {@code --threads} callers in a closed loop of {@code acquire}, {@code settle} (with
 * usage below the reservation, as most calls do, except at the limit) and
 * {@code release}: no HTTP, so that what is measured is the admission alone. A Lettuce
 * {@link CommandListener} on each client counts the commands the store sends, those sent
 * during {@code acquire} apart.
 *
 * <ul>
 * <li><b>Overhead</b>, limits that never bind (every call admitted at once): admissions a
 * second per instance and the latency of {@code acquire}, in memory and with Redis, once
 * with the model's three buckets and once with a tenant's two on top.</li>
 * <li><b>At the limit</b>: an input-token limit of {@code --limit} a minute, 100 tokens
 * an admission, the shared bucket drained first: the admissions a second of each instance
 * and of the three together, against the limit's rate.</li>
 * </ul>
 *
 * Run with a Redis server of its own (not one that tests use): {@code --redis-port}
 * (default 6391) on 127.0.0.1. Options: {@code --seconds} of measurement per run (default
 * 10, after {@code --warmup} seconds, default 3), {@code --threads} per instance (default
 * 4), {@code --limit} input tokens a minute for the second part (default 600000).
 */
public final class SharedStoreLoad {

    private static final int INSTANCES = 3;

    /** Far above any rate reached here. */
    private static final long NEVER_BINDS = 10_000_000_000L;

    private static final long TOKENS_PER_ADMISSION = 100;

    private final int redisPort;

    private final Duration measured;

    private final Duration warmup;

    private final int threads;

    private final long limit;

    private SharedStoreLoad(int redisPort, Duration measured, Duration warmup, int threads, long limit) {
        this.redisPort = redisPort;
        this.measured = measured;
        this.warmup = warmup;
        this.threads = threads;
        this.limit = limit;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = options(args);
        SharedStoreLoad load = new SharedStoreLoad(Integer.parseInt(options.getOrDefault("redis-port", "6391")),
                Duration.ofSeconds(Long.parseLong(options.getOrDefault("seconds", "10"))),
                Duration.ofSeconds(Long.parseLong(options.getOrDefault("warmup", "3"))),
                Integer.parseInt(options.getOrDefault("threads", "4")),
                Long.parseLong(options.getOrDefault("limit", "600000")));
        load.run();
        System.exit(0);
    }

    private void run() throws Exception {
        System.out.printf(Locale.ROOT,
                "%d instances, %d callers each, %d s measured after %d s of warm-up, Redis on " + "127.0.0.1:%d%n%n",
                INSTANCES, this.threads, this.measured.toSeconds(), this.warmup.toSeconds(), this.redisPort);
        List<String> rows = new ArrayList<>();
        for (boolean tenant : new boolean[] { false, true }) {
            for (boolean redis : new boolean[] { false, true }) {
                rows.add(overhead(redis, tenant));
            }
        }
        System.out.println();
        System.out.println("| Store | Buckets | Instance | Admissions/s | Refused | acquire p50 | p99 | p99.9 | max "
                + "| Redis commands per admission (in acquire) |");
        System.out.println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        rows.forEach(System.out::print);
        System.out.println();
        System.out.println(atTheLimit());
    }

    /** One overhead run: three instances, limits that never bind. */
    private String overhead(boolean redis, boolean tenant) throws Exception {
        ModelLimits limits = new ModelLimits(NEVER_BINDS, NEVER_BINDS, NEVER_BINDS, null);
        TenantLimits tenantLimits = tenant ? new TenantLimits(NEVER_BINDS, NEVER_BINDS, null) : null;
        try (Fleet fleet = new Fleet(redis, limits, tenantLimits)) {
            Result[] results = fleet.drive(this.threads, this.warmup, this.measured, tenant ? "acme" : null, 512, 64,
                    true);
            StringBuilder rows = new StringBuilder();
            for (int i = 0; i < INSTANCES; i++) {
                Result result = results[i];
                String row = String.format(Locale.ROOT, "| %s | %s | %d | %,.0f | %d | %s | %s | %s | %s | %s |%n",
                        redis ? "redis" : "memory", tenant ? "model 3 + tenant 2" : "model 3", i + 1,
                        result.perSecond(this.measured), result.refused(), micros(result.percentile(0.50)),
                        micros(result.percentile(0.99)), micros(result.percentile(0.999)),
                        micros(result.percentile(1.0)), redis ? String.format(Locale.ROOT, "%.2f (%.2f)",
                                result.commandsPerAdmission(), result.acquireCommandsPerAdmission()) : "–");
                rows.append(row);
                System.out.print(row);
            }
            return rows.toString();
        }
    }

    /** Three instances at one shared input-token limit. */
    private String atTheLimit() throws Exception {
        ModelLimits limits = new ModelLimits(null, this.limit, null, null);
        try (Fleet fleet = new Fleet(true, limits, null)) {
            // Drain the shared bucket: measure the refill, not the minute it stores.
            fleet.limiters[0]
                .acquire(new AdmissionRequest(Priority.NORMAL, null, this.limit, 0, Duration.ofSeconds(30)))
                .release(Permit.Outcome.SUCCESS);
            Result[] results = fleet.drive(this.threads, Duration.ZERO, this.measured, null, TOKENS_PER_ADMISSION, 0,
                    false);
            double rate = (double) this.limit / 60 / TOKENS_PER_ADMISSION;
            StringBuilder table = new StringBuilder();
            table.append(String.format(Locale.ROOT,
                    "At the limit: %,d input tokens a minute shared by the %d instances, %d tokens an admission "
                            + "(%.1f admissions/s for all), %d callers each%n%n",
                    this.limit, INSTANCES, TOKENS_PER_ADMISSION, rate, this.threads));
            table.append("| Instance | Admissions/s | Share | Refused | Redis commands per admission (in acquire) |\n");
            table.append("|---:|---:|---:|---:|---:|\n");
            double total = 0;
            for (int i = 0; i < INSTANCES; i++) {
                total += results[i].perSecond(this.measured);
            }
            for (int i = 0; i < INSTANCES; i++) {
                double perSecond = results[i].perSecond(this.measured);
                table.append(String.format(Locale.ROOT, "| %d | %.1f | %.0f %% | %d | %.2f (%.2f) |%n", i + 1,
                        perSecond, 100 * perSecond / total, results[i].refused(), results[i].commandsPerAdmission(),
                        results[i].acquireCommandsPerAdmission()));
            }
            table.append(
                    String.format(Locale.ROOT, "| all | %.1f | %.0f %% of the limit | |%n", total, 100 * total / rate));
            return table.toString();
        }
    }

    private static String micros(long nanos) {
        return String.format(Locale.ROOT, "%.0f µs", nanos / 1000.0);
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new java.util.HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        return options;
    }

    /** What one instance did during the measured seconds. */
    private record Result(long[] latencies, long admissions, long refused, long commands, long acquireCommands) {

        double perSecond(Duration measured) {
            return this.admissions / (measured.toNanos() / 1e9);
        }

        long percentile(double p) {
            if (this.latencies.length == 0) {
                return 0;
            }
            int index = (int) Math.min(this.latencies.length - 1, Math.ceil(p * this.latencies.length) - 1);
            return this.latencies[Math.max(index, 0)];
        }

        double commandsPerAdmission() {
            return (double) this.commands / Math.max(1, this.admissions);
        }

        double acquireCommandsPerAdmission() {
            return (double) this.acquireCommands / Math.max(1, this.admissions);
        }

    }

    /** Three instances, each with its own store (and Redis client). */
    private final class Fleet implements AutoCloseable {

        private final String prefix = "llm-throttle-bench-" + UUID.randomUUID();

        private final List<RedisClient> clients = new ArrayList<>();

        private final List<AutoCloseable> stores = new ArrayList<>();

        private final ModelLimiter[] limiters = new ModelLimiter[INSTANCES];

        private final LongAdder[] commands = new LongAdder[INSTANCES];

        private final LongAdder[] acquireCommands = new LongAdder[INSTANCES];

        private final ThreadLocal<Boolean> inAcquire = ThreadLocal.withInitial(() -> false);

        private volatile boolean counting;

        Fleet(boolean redis, ModelLimits limits, @Nullable TenantLimits tenantLimits) {
            Function<String, @Nullable TenantLimits> tenants = (tenant) -> tenantLimits;
            for (int i = 0; i < INSTANCES; i++) {
                LongAdder sent = new LongAdder();
                LongAdder sentInAcquire = new LongAdder();
                this.commands[i] = sent;
                this.acquireCommands[i] = sentInAcquire;
                BucketStore store;
                if (redis) {
                    RedisClient client = RedisClient.create(RedisURI.builder()
                        .withHost("127.0.0.1")
                        .withPort(SharedStoreLoad.this.redisPort)
                        .withTimeout(Duration.ofSeconds(2))
                        .build());
                    client.addListener(new CommandListener() {
                        @Override
                        public void commandStarted(CommandStartedEvent event) {
                            if (Fleet.this.counting) {
                                sent.increment();
                                if (Fleet.this.inAcquire.get()) {
                                    sentInAcquire.increment();
                                }
                            }
                        }
                    });
                    this.clients.add(client);
                    RedisBucketStore redisStore = new RedisBucketStore(client, this.prefix,
                            RedisBucketStore.OnFailure.REJECT, Duration.ofMillis(500), Duration.ofSeconds(2),
                            TimeSource.system());
                    this.stores.add(redisStore);
                    store = redisStore;
                }
                else {
                    store = new LocalBucketStore(TimeSource.system());
                }
                LimiterRegistry registry = new LimiterRegistry(
                        Map.of("anthropic", new ClientLimits(null, Map.of("opus", limits))), 10_000,
                        Duration.ofSeconds(30), tenants, store, TimeSource.system());
                this.limiters[i] = registry.limiter("anthropic", "opus");
            }
        }

        /**
         * Runs {@code threads} callers on every instance; results of the measured part.
         */
        Result[] drive(int threads, Duration warmup, Duration measured, @Nullable String tenant, long input,
                long output, boolean refund) throws InterruptedException {
            AdmissionRequest request = new AdmissionRequest(Priority.NORMAL, tenant, input, output,
                    Duration.ofSeconds(30));
            long start = System.nanoTime();
            long measureFrom = start + warmup.toNanos();
            long end = measureFrom + measured.toNanos();
            List<List<long[]>> samples = new ArrayList<>();
            AtomicLong[] admitted = new AtomicLong[INSTANCES];
            AtomicLong[] failed = new AtomicLong[INSTANCES];
            CountDownLatch done = new CountDownLatch(INSTANCES * threads);
            List<Thread> started = new ArrayList<>();
            for (int i = 0; i < INSTANCES; i++) {
                ModelLimiter limiter = this.limiters[i];
                List<long[]> instanceSamples = new java.util.concurrent.CopyOnWriteArrayList<>();
                samples.add(instanceSamples);
                AtomicLong count = new AtomicLong();
                admitted[i] = count;
                AtomicLong refused = new AtomicLong();
                failed[i] = refused;
                for (int t = 0; t < threads; t++) {
                    Thread thread = new Thread(() -> {
                        long[] latencies = new long[1024];
                        int n = 0;
                        try {
                            while (true) {
                                long before = System.nanoTime();
                                if (before >= end) {
                                    break;
                                }
                                this.inAcquire.set(true);
                                Permit permit;
                                try {
                                    permit = limiter.acquire(request);
                                }
                                catch (LlmThrottleException ex) {
                                    if (before >= measureFrom) {
                                        refused.incrementAndGet();
                                    }
                                    continue;
                                }
                                finally {
                                    this.inAcquire.set(false);
                                }
                                long after = System.nanoTime();
                                // most calls use less than they reserve; at the limit
                                // they
                                // use it all, so that the rate is the limit's
                                permit.settle(refund ? input * 3 / 4 : input, refund ? output / 2 : output);
                                permit.release(Permit.Outcome.SUCCESS);
                                if (before >= measureFrom && after <= end) {
                                    if (n == latencies.length) {
                                        latencies = Arrays.copyOf(latencies, n * 2);
                                    }
                                    latencies[n++] = after - before;
                                    count.incrementAndGet();
                                }
                            }
                        }
                        catch (Exception ex) {
                            System.err.println("caller failed: " + ex);
                        }
                        finally {
                            instanceSamples.add(Arrays.copyOf(latencies, n));
                            done.countDown();
                        }
                    }, "caller-" + i + "-" + t);
                    thread.setDaemon(true);
                    started.add(thread);
                }
            }
            started.forEach(Thread::start);
            Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(measureFrom - System.nanoTime())));
            long[] commandsBefore = new long[INSTANCES];
            long[] acquireBefore = new long[INSTANCES];
            this.counting = true;
            for (int i = 0; i < INSTANCES; i++) {
                commandsBefore[i] = this.commands[i].sum();
                acquireBefore[i] = this.acquireCommands[i].sum();
            }
            done.await();
            this.counting = false;
            Result[] results = new Result[INSTANCES];
            for (int i = 0; i < INSTANCES; i++) {
                long[] all = samples.get(i).stream().flatMapToLong(Arrays::stream).sorted().toArray();
                results[i] = new Result(all, admitted[i].get(), failed[i].get(),
                        this.commands[i].sum() - commandsBefore[i], this.acquireCommands[i].sum() - acquireBefore[i]);
            }
            return results;
        }

        @Override
        public void close() throws Exception {
            for (AutoCloseable store : this.stores) {
                store.close();
            }
            if (!this.clients.isEmpty()) {
                try (StatefulRedisConnection<String, String> connection = this.clients.get(0).connect()) {
                    List<String> keys = connection.sync().keys(this.prefix + ":*");
                    if (!keys.isEmpty()) {
                        connection.sync().del(keys.toArray(String[]::new));
                    }
                }
            }
            this.clients.forEach(RedisClient::shutdown);
        }

    }

}
