package io.github.llmthrottle.benchmarks.redis;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.benchmarks.MessagesBodies;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.ClientLimits;
import io.github.llmthrottle.limit.LimiterOptions;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.store.redis.RedisBucketStore;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.SimulatorStats;
import io.github.llmthrottle.time.TimeSource;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;

/**
 * Priority across a fleet: three instances (a {@code LimiterRegistry} on a
 * {@link RedisBucketStore} each, with its own Lettuce client) share one model's limit of
 * {@code --rpm} requests a minute on one Redis server and send their calls to the
 * testkit's simulator over HTTP. Instance 1 sends {@code REALTIME} calls at 40 % of the
 * limit, instance 2 {@code NORMAL} calls at 20 %, both at a steady rate whatever the
 * answers (open loop, {@code acquireAsync}); in the flood phases instance 0 also sends
 * {@code BATCH} calls at three times the limit. Each phase starts with the shared bucket
 * drained (so it is short from the first second) and lasts {@code --seconds}; the first
 * two seconds are not measured. Measures the queue wait of each priority (from
 * {@code acquireAsync} to its permit) and the requests the simulator admitted a second,
 * in three phases: no flood; the flood; the flood with priorities not shared (each
 * instance's store keeps them to itself, as before they were shared).
 */
public final class FleetPriorityLoad {

    private static final String MODEL = "claude-opus-4-7";

    private static final Duration WARMUP = Duration.ofSeconds(2);

    private FleetPriorityLoad() {
    }

    public static void main(String[] args) throws Exception {
        Settings settings = new Settings(Unshared.intOption(args, "--redis-port", 6379),
                Unshared.intOption(args, "--rpm", 1_200),
                Duration.ofSeconds(Unshared.intOption(args, "--seconds", 20)));
        System.out.println(run(settings).report());
    }

    /**
     * Runs the three phases.
     * @param settings where Redis is, the limit, how long each phase lasts
     * @return the figures of each phase
     * @throws Exception if the run cannot be set up
     */
    public static Result run(Settings settings) throws Exception {
        try (LlmSimulator simulator = LlmSimulator.builder()
            .model(MODEL, io.github.llmthrottle.test.ModelLimits.of(settings.rpm(), 100_000_000, 100_000_000))
            .latency(Duration.ofMillis(20), Duration.ZERO)
            .outputTokens(10)
            .start()) {
            Phase quiet = phase(settings, simulator, false, true);
            Phase flood = phase(settings, simulator, true, true);
            Phase unshared = phase(settings, simulator, true, false);
            return new Result(settings, quiet, flood, unshared);
        }
    }

    private static Phase phase(Settings settings, LlmSimulator simulator, boolean flood, boolean shared)
            throws Exception {
        String prefix = "llm-throttle-bench-" + UUID.randomUUID();
        List<RedisClient> clients = new ArrayList<>();
        List<RedisBucketStore> stores = new ArrayList<>();
        List<ModelLimiter> limiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            RedisClient client = RedisClient.create(RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(settings.redisPort())
                .withTimeout(Duration.ofSeconds(2))
                .build());
            clients.add(client);
            RedisBucketStore store = new RedisBucketStore(client, prefix, RedisBucketStore.OnFailure.REJECT,
                    Duration.ofSeconds(1), Duration.ofSeconds(2), TimeSource.system());
            stores.add(store);
            limiters
                .add(new LimiterRegistry(
                        Map.of("anthropic",
                                new ClientLimits(null,
                                        Map.of(MODEL, new ModelLimits(settings.rpm(), null, null, null)))),
                        500, Duration.ofSeconds(10), (tenant) -> null, shared ? store : new Unshared(store),
                        TimeSource.system(), LimiterOptions.WITHOUT_SLOW_START)
                    .limiter("anthropic", MODEL));
        }
        ExecutorService senders = Executors.newFixedThreadPool(48);
        ScheduledExecutorService arrivals = Executors.newScheduledThreadPool(3);
        HttpClient http = HttpClient.newBuilder().executor(senders).build();
        String body = MessagesBodies.singleTurn(MODEL, 16, "Say hello in one short sentence, please.");
        Caller caller = new Caller(http, URI.create(simulator.baseUrl() + "/v1/messages"), body, senders);
        try {
            drain(limiters.get(0));
            simulator.resetStats();
            long start = System.nanoTime();
            long measuredFrom = start + WARMUP.toNanos();
            long end = measuredFrom + settings.duration().toNanos();
            double perSecond = settings.rpm() / 60.0;
            Sender realtime = new Sender(limiters.get(1), Priority.REALTIME, measuredFrom, end, caller);
            Sender normal = new Sender(limiters.get(2), Priority.NORMAL, measuredFrom, end, caller);
            Sender batch = new Sender(limiters.get(0), Priority.BATCH, measuredFrom, end, caller);
            List<ScheduledFuture<?>> schedules = new ArrayList<>();
            schedules.add(arrivals.scheduleAtFixedRate(realtime::send, 0, periodNanos(0.4 * perSecond),
                    TimeUnit.NANOSECONDS));
            schedules
                .add(arrivals.scheduleAtFixedRate(normal::send, 0, periodNanos(0.2 * perSecond), TimeUnit.NANOSECONDS));
            if (flood) {
                schedules.add(
                        arrivals.scheduleAtFixedRate(batch::send, 0, periodNanos(3 * perSecond), TimeUnit.NANOSECONDS));
            }
            Instant measuredFromInstant = simulator.clock().instant().plus(WARMUP);
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(end - start));
            schedules.forEach((schedule) -> schedule.cancel(false));
            Instant measuredTo = measuredFromInstant.plus(settings.duration());
            // the calls still waiting end within their max-wait
            Thread.sleep(1_000);
            SimulatorStats stats = simulator.stats(MODEL);
            long admitted = stats.admittedPerSecond()
                .subMap(measuredFromInstant, true, measuredTo, false)
                .values()
                .stream()
                .mapToLong(Long::longValue)
                .sum();
            return new Phase(flood, shared, realtime.waits(), normal.waits(), batch.waits(), realtime.refused.get(),
                    batch.refused.get(), admitted / (double) settings.duration().toSeconds(), stats.rateLimited());
        }
        finally {
            arrivals.shutdownNow();
            senders.shutdown();
            senders.awaitTermination(15, TimeUnit.SECONDS);
            stores.forEach(RedisBucketStore::close);
            try (var connection = clients.get(0).connect()) {
                List<String> keys = connection.sync().keys(prefix + ":*");
                if (!keys.isEmpty()) {
                    connection.sync().del(keys.toArray(String[]::new));
                }
            }
            clients.forEach(RedisClient::shutdown);
        }
    }

    /** Takes what the shared bucket holds, so that it is short from the start. */
    private static void drain(ModelLimiter limiter) throws InterruptedException {
        AdmissionRequest request = new AdmissionRequest(Priority.BATCH, null, 0, 0, Duration.ZERO);
        while (true) {
            try {
                limiter.acquire(request).release(Permit.Outcome.IGNORED);
            }
            catch (AdmissionTimeoutException ex) {
                return;
            }
        }
    }

    private static long periodNanos(double perSecond) {
        return (long) (1e9 / perSecond);
    }

    /** Sends one call once admitted, and releases its permit. */
    private record Caller(HttpClient http, URI uri, String body, ExecutorService senders) {

        void call(Permit permit) {
            HttpRequest request = HttpRequest.newBuilder(this.uri)
                .header("content-type", "application/json")
                .header("x-api-key", "bench")
                .header("anthropic-version", "2023-06-01")
                .POST(HttpRequest.BodyPublishers.ofString(this.body))
                .build();
            this.http.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((response, failure) -> {
                boolean throttled = response != null && (response.statusCode() == 429 || response.statusCode() == 529);
                permit.release((failure != null || throttled) ? Permit.Outcome.DROPPED : Permit.Outcome.SUCCESS);
            });
        }

    }

    /** Calls of one priority from one instance, at a steady rate. */
    private static final class Sender {

        private final ModelLimiter limiter;

        private final AdmissionRequest request;

        private final long measuredFrom;

        private final long end;

        private final Caller caller;

        private final ConcurrentLinkedQueue<Long> waits = new ConcurrentLinkedQueue<>();

        private final AtomicLong refused = new AtomicLong();

        Sender(ModelLimiter limiter, Priority priority, long measuredFrom, long end, Caller caller) {
            this.limiter = limiter;
            this.request = new AdmissionRequest(priority, null, 0, 0, Duration.ofSeconds(10));
            this.measuredFrom = measuredFrom;
            this.end = end;
            this.caller = caller;
        }

        void send() {
            long arrival = System.nanoTime();
            if (arrival >= this.end) {
                return;
            }
            this.limiter.acquireAsync(this.request).whenComplete((permit, failure) -> {
                long wait = System.nanoTime() - arrival;
                if (arrival >= this.measuredFrom) {
                    if (failure != null) {
                        this.refused.incrementAndGet();
                    }
                    else {
                        this.waits.add(wait);
                    }
                }
                if (permit != null) {
                    this.caller.call(permit);
                }
            });
        }

        long[] waits() {
            return this.waits.stream().mapToLong(Long::longValue).sorted().toArray();
        }

    }

    /**
     * What to run.
     *
     * @param redisPort the Redis server's port on 127.0.0.1
     * @param rpm the model's requests a minute, the limit the three instances share
     * @param duration how long each phase is measured
     */
    public record Settings(int redisPort, long rpm, Duration duration) {
    }

    /**
     * One phase's figures.
     *
     * @param flood whether instance 0 flooded BATCH at three times the limit
     * @param shared whether the stores shared priorities
     * @param realtime the queue waits of the REALTIME calls admitted, sorted (ns)
     * @param normal the same for NORMAL
     * @param batch the same for BATCH
     * @param realtimeRefused REALTIME calls that were not admitted
     * @param batchRefused BATCH calls that were not admitted (queue full, timed out)
     * @param admittedPerSecond requests the simulator admitted a second, measured
     * @param rateLimited 429s the simulator sent
     */
    public record Phase(boolean flood, boolean shared, long[] realtime, long[] normal, long[] batch,
            long realtimeRefused, long batchRefused, double admittedPerSecond, long rateLimited) {

        /** A percentile of the REALTIME waits, in milliseconds. */
        public double realtimeMillis(double percentile) {
            return millis(this.realtime, percentile);
        }

        static double millis(long[] sorted, double percentile) {
            if (sorted.length == 0) {
                return Double.NaN;
            }
            int index = (int) Math.min(sorted.length - 1, Math.ceil(percentile / 100 * sorted.length) - 1);
            return sorted[Math.max(0, index)] / 1e6;
        }

        String row(long rpm) {
            String name = !this.flood ? "no flood" : this.shared ? "BATCH flood at 3x" : "flood, priorities not shared";
            return String.format(Locale.ROOT,
                    "| %s | %d | %.1f | %.1f | %.1f | %d | %.1f | %.1f | %d | %.1f/s (%.1f %%) | %d |", name,
                    this.realtime.length, millis(this.realtime, 50), millis(this.realtime, 95),
                    millis(this.realtime, 99), this.realtimeRefused, millis(this.normal, 95), millis(this.batch, 50),
                    this.batch.length, this.admittedPerSecond, 100 * this.admittedPerSecond / (rpm / 60.0),
                    this.rateLimited);
        }

    }

    /**
     * The three phases.
     *
     * @param settings what ran
     * @param quiet REALTIME and NORMAL without the flood
     * @param flood with the BATCH flood
     * @param unshared with the flood, priorities not shared
     */
    public record Result(Settings settings, Phase quiet, Phase flood, Phase unshared) {

        /** REALTIME's p95 wait under the flood over that without it. */
        public double realtimeP95Ratio() {
            return this.flood.realtimeMillis(95) / this.quiet.realtimeMillis(95);
        }

        /** The requests admitted a second under the flood, over the limit. */
        public double floodShareOfLimit() {
            return this.flood.admittedPerSecond() / (this.settings.rpm() / 60.0);
        }

        public String report() {
            StringBuilder report = new StringBuilder(String.format(Locale.ROOT,
                    "3 instances, limit %d RPM (%.0f/s), REALTIME at 40 %%, NORMAL at 20 %%, %d s a phase%n",
                    this.settings.rpm(), this.settings.rpm() / 60.0, this.settings.duration().toSeconds()));
            report.append("| phase | REALTIME calls | p50 ms | p95 ms | p99 ms | refused | NORMAL p95 ms ")
                .append("| BATCH p50 ms | BATCH admitted | fleet admitted | 429s |\n");
            for (Phase phase : Arrays.asList(this.quiet, this.flood, this.unshared)) {
                report.append(phase.row(this.settings.rpm())).append('\n');
            }
            report.append(
                    String.format(Locale.ROOT, "REALTIME p95 with the flood / without: %.2f%n", realtimeP95Ratio()));
            return report.toString();
        }

    }

}
