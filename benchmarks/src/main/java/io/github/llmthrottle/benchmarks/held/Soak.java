package io.github.llmthrottle.benchmarks.held;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.QueueFullException;
import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.autoconfigure.LlmThrottleRedisAutoConfiguration;
import io.github.llmthrottle.benchmarks.MessagesBodies;
import io.github.llmthrottle.benchmarks.ThrottleApplication;
import io.github.llmthrottle.benchmarks.memory.Heap;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.limit.RedisBucketStore;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.test.RandomFaults;
import io.github.llmthrottle.test.SimulatorStats;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;

/**
 * A soak: calls offered open-loop at twice the model's limits for a long time, through
 * the auto-configured {@code anthropicRestClient} to the simulated provider on loopback,
 * with faults injected, sampling the heap (after full collections) and the thread count
 * as it goes. It checks that nothing accumulates: the heap and the threads stay flat
 * after warm-up, every call started ends with its body or a typed exception (counted by
 * type), and at the end no permit is held and no queue place taken.
 * <ul>
 * <li>The model: 300 requests, 60,000 input and 30,000 output tokens a minute, configured
 * and the provider's; each call asks about 200 input tokens and {@code max_tokens} 64, so
 * requests and input tokens both allow 5 calls a second. The buckets start full, the
 * provider's and the library's alike, as an application's do: the first minute lets its
 * burst through, then the queue grows until calls reach max-wait, about two minutes in
 * (the warm-up; the figures after warm-up leave out its first two minutes, or the first
 * fifth of a longer run). Every other setting is the default: queue capacity 1,000,
 * max-wait 30 s, 4 retries from 500 ms, the circuit opening after 5 failed attempts in a
 * row.</li>
 * <li>The load: {@code overload} × 5 calls a second (default 10), each on a thread of its
 * own (platform or virtual), whatever happened to earlier calls. At twice the limits
 * about half the calls cannot be served within max-wait and fail with
 * {@link AdmissionTimeoutException}: that is the library's answer to a sustained
 * overload, and what the soak expects.</li>
 * <li>The faults: dropped connections (1 % of requests reset) and random 529s (0.5 %)
 * drawn by the simulator; every {@code fault-period} a burst of four 529s in a row (fewer
 * than the circuit's threshold) and, half a period later, a burst of three 429s with
 * {@code retry-after: 1} (each pauses the model for a second); with
 * {@code --store redis}, the soak's own {@code redis-server} stopped at half time and
 * started again (empty) after {@code redis-down} (the store serves calls on local buckets
 * meanwhile, its default {@code on-failure: local}).</li>
 * </ul>
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.github.llmthrottle.benchmarks.held.Soak \
 *     --seconds 600 --sample-seconds 30 --store redis --redis-port 6392
 * </pre> Options: {@code --threads platform|virtual} (default platform),
 * {@code --overload X} (default 2), {@code --fault-period-seconds N} (default 60),
 * {@code --redis-down-seconds N} (default 10), {@code --no-faults} (no provider faults;
 * the Redis restart still happens with {@code --store redis}).
 */
public final class Soak {

    static final String MODEL = "claude-sonnet-4-5";

    static final int REQUESTS_PER_MINUTE = 300;

    static final int INPUT_TOKENS_PER_MINUTE = 60_000;

    static final int OUTPUT_TOKENS_PER_MINUTE = 30_000;

    private static final String CALLER_PREFIX = "soak-caller-";

    /** The calls a second the limits allow. */
    static final double LIMIT_PER_SECOND = REQUESTS_PER_MINUTE / 60.0;

    /** About 200 input tokens (the estimate is a token per four characters). */
    private static final String PROMPT = prose(800);

    private static final List<String> COLUMNS = List.of(Outcomes.SUCCEEDED,
            AdmissionTimeoutException.class.getSimpleName(), QueueFullException.class.getSimpleName(),
            RetriesExhaustedException.class.getSimpleName());

    private Soak() {
    }

    public static void main(String[] args) throws Exception {
        Settings settings = Settings.of(Duration.ofSeconds(60));
        for (int i = 0; i < args.length; i++) {
            String value = (i + 1 < args.length) ? args[i + 1] : "";
            switch (args[i]) {
                case "--seconds" -> settings = settings.withDuration(Duration.ofSeconds(Long.parseLong(value)));
                case "--sample-seconds" ->
                    settings = settings.withSampleEvery(Duration.ofSeconds(Long.parseLong(value)));
                case "--overload" -> settings = settings.withOverload(Double.parseDouble(value));
                case "--threads" -> settings = settings.withThreads(CallerThreads.of(value));
                case "--store" -> settings = settings.withRedisPort(
                        value.equals("redis") ? ((settings.redisPort() > 0) ? settings.redisPort() : 6392) : 0);
                case "--redis-port" -> settings = settings.withRedisPort(Integer.parseInt(value));
                case "--redis-down-seconds" ->
                    settings = settings.withRedisDown(Duration.ofSeconds(Long.parseLong(value)));
                case "--fault-period-seconds" ->
                    settings = settings.withFaultPeriod(Duration.ofSeconds(Long.parseLong(value)));
                case "--no-faults" -> {
                    settings = settings.withFaults(false);
                    i--;
                }
                default -> throw new IllegalArgumentException("Unknown argument " + args[i]
                        + "; use --seconds N --sample-seconds N --overload X --threads platform|virtual "
                        + "--store memory|redis --redis-port N --redis-down-seconds N --fault-period-seconds N "
                        + "--no-faults");
            }
            i++;
        }
        System.out.printf(Locale.ROOT, "JDK %s, %d CPUs, max heap %d MB, GC %s%n", Runtime.version(),
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20,
                ManagementFactory.getGarbageCollectorMXBeans().get(0).getName());
        System.out.println(settings);
        Result result = run(settings, (sample) -> System.out.println(sample.row()));
        System.out.println(result.report());
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    /**
     * Runs the soak once, in this JVM.
     * @param settings what to run
     * @param samples receives each sample as it is taken (the table's header first)
     * @return what happened
     * @throws Exception if the run cannot be set up
     */
    public static Result run(Settings settings, SampleListener samples) throws Exception {
        RedisProcess redis = (settings.redisPort() > 0) ? new RedisProcess(settings.redisPort()) : null;
        if (redis != null) {
            redis.start();
        }
        LlmSimulator.Builder builder = LlmSimulator.builder()
            .model(MODEL, ModelLimits.of(REQUESTS_PER_MINUTE, INPUT_TOKENS_PER_MINUTE, OUTPUT_TOKENS_PER_MINUTE))
            .latency(Duration.ofMillis(100), Duration.ZERO)
            .outputTokens(50);
        if (settings.faults()) {
            builder.randomFaults(MODEL, RandomFaults.none().withConnectionReset(0.01).withOverloaded(0.005));
        }
        List<String> properties = new ArrayList<>(
                List.of("logging.level.io.github.llmthrottle.client.ThrottledCall=error",
                        // an outage of the soak's own Redis is expected: its one warning
                        // is enough
                        "logging.level.io.lettuce=error"));
        if (redis != null) {
            properties.addAll(List.of("llm.throttle.store=redis", "spring.data.redis.host=127.0.0.1",
                    "spring.data.redis.port=" + redis.port(),
                    "llm.throttle.redis.key-prefix=llm-throttle-soak-" + System.nanoTime()));
        }
        try {
            return run(settings, samples, redis, builder, properties);
        }
        finally {
            if (redis != null) {
                // also when the run failed: the soak's own server does not outlive it
                redis.stopIfOwned();
            }
        }
    }

    private static Result run(Settings settings, SampleListener samples, @Nullable RedisProcess redis,
            LlmSimulator.Builder builder, List<String> properties) throws Exception {
        try (LlmSimulator simulator = builder.start();
                ConfigurableApplicationContext context = start(simulator.baseUrl(), redis != null,
                        properties.toArray(String[]::new))) {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            LimiterRegistry limiters = context.getBean(LimiterRegistry.class);
            ModelLimiter limiter = limiters.limiter("anthropic", MODEL);
            RedisBucketStore store = context.getBeanProvider(RedisBucketStore.class).getIfAvailable();
            String body = MessagesBodies.singleTurn(MODEL, 64, PROMPT);
            ConcurrentCallers.post(client, body);
            simulator.resetStats();

            Outcomes outcomes = new Outcomes();
            LongAdder succeededWithoutRedis = new LongAdder();
            StoreWatcher watcher = (store != null) ? new StoreWatcher(store) : null;
            ThreadFactory threads = settings.threads().factory(CALLER_PREFIX);
            FaultSchedule faults = new FaultSchedule(settings, simulator, redis);
            List<Sample> taken = java.util.Collections.synchronizedList(new ArrayList<>());
            samples.accept(Sample.HEADER);
            // the first sample before the load starts, so that its collections do not
            // delay the first calls
            Sample first = Sample.take(System.nanoTime(), outcomes, limiter, watcher, simulator.stats(MODEL)).at(0);
            taken.add(first);
            samples.accept(first);
            long start = System.nanoTime();
            long end = start + settings.duration().toNanos();
            double rate = settings.overload() * LIMIT_PER_SECOND;
            Sampler sampler = new Sampler(start, settings.sampleEvery(), () -> {
                Sample sample = Sample.take(start, outcomes, limiter, watcher, simulator.stats(MODEL));
                taken.add(sample);
                samples.accept(sample);
            });
            sampler.start();
            for (long i = 0;; i++) {
                long due = start + (long) (i * 1e9 / rate);
                if (due >= end) {
                    break;
                }
                faults.runDue(due - start);
                long sleep = due - System.nanoTime();
                if (sleep > 0) {
                    TimeUnit.NANOSECONDS.sleep(sleep);
                }
                outcomes.start();
                threads.newThread(() -> {
                    try {
                        ConcurrentCallers.post(client, body);
                        outcomes.succeeded();
                        if (watcher != null && watcher.down) {
                            succeededWithoutRedis.increment();
                        }
                    }
                    catch (Throwable ex) {
                        outcomes.failed(ex);
                    }
                }).start();
            }
            faults.awaitRedis();
            long offered = System.nanoTime() - start;
            // every call ends within max-wait of its arrival plus its retries
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (outcomes.ended() < outcomes.started() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            long drainedAfter = System.nanoTime() - start - offered;
            sampler.stop();
            LimiterState state = awaitIdle(limiter);
            Sample last = Sample.take(start, outcomes, limiter, watcher, simulator.stats(MODEL));
            taken.add(last);
            samples.accept(last);
            if (watcher != null) {
                watcher.close();
            }
            long redisKeys = (redis != null) ? redis.keys() : -1;
            int inFlight = ConcurrentCallers.inFlight(limiters);
            int queued = ConcurrentCallers.queued(limiters);
            if (redis != null) {
                context.close();
                redis.stopIfOwned();
            }
            Map<String, Long> threadGroups = threadGroups();
            return new Result(settings, outcomes.started(), outcomes.byOutcome(), outcomes.untyped(),
                    Duration.ofNanos(offered), Duration.ofNanos(drainedAfter), List.copyOf(taken), faults.injected(),
                    simulator.stats(MODEL), inFlight, queued, simulator.inFlight(), state,
                    (watcher != null) ? watcher.outages() : List.of(), succeededWithoutRedis.sum(), redisKeys,
                    threadGroups);
        }
    }

    private static ConfigurableApplicationContext start(String baseUrl, boolean redis, String... extra) {
        Map<String, Object> limits = Map.of("requests-per-minute", REQUESTS_PER_MINUTE, "input-tokens-per-minute",
                INPUT_TOKENS_PER_MINUTE, "output-tokens-per-minute", OUTPUT_TOKENS_PER_MINUTE);
        if (!redis) {
            return ThrottleApplication.start(baseUrl, MODEL, limits, extra);
        }
        return new SpringApplicationBuilder(RedisThrottleApplication.class).web(WebApplicationType.NONE)
            .properties(ThrottleApplication.properties(baseUrl, MODEL, limits, extra))
            .run();
    }

    /** The live platform threads by name, digits left out, most numerous first. */
    private static Map<String, Long> threadGroups() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<String, Long> groups = new java.util.TreeMap<>();
        for (ThreadInfo thread : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (thread != null) {
                groups.merge(thread.getThreadName().replaceAll("\\d+", "N"), 1L, Long::sum);
            }
        }
        Map<String, Long> sorted = new LinkedHashMap<>();
        groups.entrySet()
            .stream()
            .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
            .forEach((entry) -> sorted.put(entry.getKey(), entry.getValue()));
        return sorted;
    }

    private static LimiterState awaitIdle(ModelLimiter limiter) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        LimiterState state = limiter.state();
        while ((state.inFlight() != 0 || state.queued().total() != 0) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            state = limiter.state();
        }
        return state;
    }

    private static String prose(int length) {
        String words = "the rate limit of each model is shared by every caller so a request waits for tokens ";
        StringBuilder text = new StringBuilder(length);
        while (text.length() < length) {
            text.append(words);
        }
        return text.substring(0, length);
    }

    /**
     * Boot's Redis connection and the Redis store on top of {@link ThrottleApplication}.
     */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
            DataRedisAutoConfiguration.class, LlmThrottleRedisAutoConfiguration.class,
            LlmThrottleAutoConfiguration.class })
    static class RedisThrottleApplication {

    }

    /** Receives the samples of a soak as they are taken. */
    @FunctionalInterface
    public interface SampleListener {

        /**
         * One sample, or {@link Sample#HEADER} first.
         * @param sample the sample
         */
        void accept(Sample sample);

    }

    /** Samples on a daemon thread of its own, every {@code every} from {@code start}. */
    private static final class Sampler {

        private final Thread thread;

        private volatile boolean running = true;

        Sampler(long start, Duration every, Runnable sample) {
            this.thread = new Thread(() -> {
                for (long next = start + every.toNanos(); this.running; next += every.toNanos()) {
                    long sleep = next - System.nanoTime();
                    try {
                        if (sleep > 0) {
                            TimeUnit.NANOSECONDS.sleep(sleep);
                        }
                    }
                    catch (InterruptedException ex) {
                        return;
                    }
                    if (this.running) {
                        sample.run();
                    }
                }
            }, "soak-sampler");
            this.thread.setDaemon(true);
        }

        void start() {
            this.thread.start();
        }

        void stop() throws InterruptedException {
            this.running = false;
            this.thread.interrupt();
            this.thread.join(TimeUnit.SECONDS.toMillis(30));
        }

    }

    /**
     * Whether the Redis store is serving calls without Redis, read every 20 ms; records
     * each outage as the store saw it.
     */
    private static final class StoreWatcher implements AutoCloseable {

        private final RedisBucketStore store;

        private final Thread thread;

        private final List<Duration[]> outages = new ArrayList<>();

        private final long start = System.nanoTime();

        volatile boolean down;

        private volatile boolean running = true;

        StoreWatcher(RedisBucketStore store) {
            this.store = store;
            this.thread = new Thread(this::watch, "soak-store-watcher");
            this.thread.setDaemon(true);
            this.thread.start();
        }

        private void watch() {
            long since = 0;
            while (this.running) {
                boolean now = this.store.isUnavailable();
                if (now != this.down) {
                    long t = System.nanoTime() - this.start;
                    if (now) {
                        since = t;
                    }
                    else {
                        synchronized (this.outages) {
                            this.outages.add(new Duration[] { Duration.ofNanos(since), Duration.ofNanos(t) });
                        }
                    }
                    this.down = now;
                }
                try {
                    Thread.sleep(20);
                }
                catch (InterruptedException ex) {
                    return;
                }
            }
        }

        List<Duration[]> outages() {
            synchronized (this.outages) {
                return List.copyOf(this.outages);
            }
        }

        @Override
        public void close() {
            this.running = false;
            this.thread.interrupt();
        }

    }

    /**
     * The scheduled faults: every period a burst of 529s and, half a period later, a
     * burst of 429s with retry-after; the Redis restart at half time on a thread of its
     * own.
     */
    private static final class FaultSchedule {

        private final Settings settings;

        private final LlmSimulator simulator;

        private final @Nullable RedisProcess redis;

        private long nextBurst529;

        private long nextBurst429;

        private boolean redisRestarted;

        private @Nullable Thread restart;

        private final Map<String, Long> injected = new LinkedHashMap<>();

        private final AtomicLong redisStopped = new AtomicLong(-1);

        private final AtomicLong redisStarted = new AtomicLong(-1);

        FaultSchedule(Settings settings, LlmSimulator simulator, @Nullable RedisProcess redis) {
            this.settings = settings;
            this.simulator = simulator;
            this.redis = redis;
            long period = settings.faultPeriod().toNanos();
            this.nextBurst529 = period / 4;
            this.nextBurst429 = period * 3 / 4;
        }

        /** Injects what is due at {@code elapsed} nanoseconds into the run. */
        void runDue(long elapsed) {
            long period = this.settings.faultPeriod().toNanos();
            if (this.settings.faults() && elapsed >= this.nextBurst529) {
                this.simulator.script(MODEL, Fault.overloaded(), Fault.overloaded(), Fault.overloaded(),
                        Fault.overloaded());
                this.injected.merge("529 bursts (4 in a row)", 1L, Long::sum);
                this.nextBurst529 += period;
            }
            if (this.settings.faults() && elapsed >= this.nextBurst429) {
                Fault rateLimited = Fault.status(429).retryAfter("1");
                this.simulator.script(MODEL, rateLimited, rateLimited, rateLimited);
                this.injected.merge("429 bursts (3 in a row, retry-after 1)", 1L, Long::sum);
                this.nextBurst429 += period;
            }
            if (this.redis != null && !this.redisRestarted && elapsed >= this.settings.duration().toNanos() / 2) {
                this.redisRestarted = true;
                long start = System.nanoTime() - elapsed;
                this.restart = new Thread(() -> {
                    try {
                        this.redis.stop();
                        this.redisStopped.set(System.nanoTime() - start);
                        Thread.sleep(this.settings.redisDown().toMillis());
                        this.redis.start();
                        this.redisStarted.set(System.nanoTime() - start);
                    }
                    catch (Exception ex) {
                        System.err.println("Redis restart failed: " + ex);
                    }
                }, "soak-redis-restart");
                this.restart.start();
                this.injected.merge("Redis restarts", 1L, Long::sum);
            }
        }

        void awaitRedis() throws InterruptedException {
            if (this.restart != null) {
                this.restart.join();
            }
        }

        Map<String, Long> injected() {
            Map<String, Long> all = new LinkedHashMap<>(this.injected);
            if (this.redisStopped.get() >= 0) {
                all.put("Redis stopped at (s)", TimeUnit.NANOSECONDS.toSeconds(this.redisStopped.get()));
                all.put("Redis started again at (s)", TimeUnit.NANOSECONDS.toSeconds(this.redisStarted.get()));
            }
            return all;
        }

    }

    /**
     * What to run.
     *
     * @param duration how long calls are offered
     * @param sampleEvery time between samples
     * @param overload the offered calls a second, as a multiple of what the limits allow
     * @param threads what the callers run on
     * @param redisPort the port of the soak's own Redis with {@code store: redis}, 0 for
     * {@code store: memory}
     * @param redisDown how long Redis stays stopped
     * @param faultPeriod time between bursts of 529s (and of 429s)
     * @param faults whether to inject faults
     */
    public record Settings(Duration duration, Duration sampleEvery, double overload, CallerThreads threads,
            int redisPort, Duration redisDown, Duration faultPeriod, boolean faults) {

        /**
         * The report's settings for a run of {@code duration}: twice the limits, platform
         * threads, memory store, faults every minute, a sample every tenth of the run.
         * @param duration how long calls are offered
         * @return the settings
         */
        public static Settings of(Duration duration) {
            return new Settings(duration, duration.dividedBy(10), 2.0, CallerThreads.PLATFORM, 0,
                    Duration.ofSeconds(10), Duration.ofSeconds(60), true);
        }

        public Settings withDuration(Duration duration) {
            return new Settings(duration, duration.dividedBy(10), this.overload, this.threads, this.redisPort,
                    this.redisDown, this.faultPeriod, this.faults);
        }

        public Settings withSampleEvery(Duration sampleEvery) {
            return new Settings(this.duration, sampleEvery, this.overload, this.threads, this.redisPort, this.redisDown,
                    this.faultPeriod, this.faults);
        }

        public Settings withOverload(double overload) {
            return new Settings(this.duration, this.sampleEvery, overload, this.threads, this.redisPort, this.redisDown,
                    this.faultPeriod, this.faults);
        }

        public Settings withThreads(CallerThreads threads) {
            return new Settings(this.duration, this.sampleEvery, this.overload, threads, this.redisPort, this.redisDown,
                    this.faultPeriod, this.faults);
        }

        public Settings withRedisPort(int redisPort) {
            return new Settings(this.duration, this.sampleEvery, this.overload, this.threads, redisPort, this.redisDown,
                    this.faultPeriod, this.faults);
        }

        public Settings withRedisDown(Duration redisDown) {
            return new Settings(this.duration, this.sampleEvery, this.overload, this.threads, this.redisPort, redisDown,
                    this.faultPeriod, this.faults);
        }

        public Settings withFaultPeriod(Duration faultPeriod) {
            return new Settings(this.duration, this.sampleEvery, this.overload, this.threads, this.redisPort,
                    this.redisDown, faultPeriod, this.faults);
        }

        public Settings withFaults(boolean faults) {
            return new Settings(this.duration, this.sampleEvery, this.overload, this.threads, this.redisPort,
                    this.redisDown, this.faultPeriod, faults);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT,
                    "soak of %s at %.1f× the limits (%.1f calls a second offered, %.1f allowed) on %s threads, "
                            + "store %s, faults %s, a sample every %s",
                    this.duration, this.overload, this.overload * LIMIT_PER_SECOND, LIMIT_PER_SECOND, this.threads,
                    (this.redisPort > 0)
                            ? "redis (port " + this.redisPort + ", down " + this.redisDown + " at half time)"
                            : "memory",
                    this.faults ? "every " + this.faultPeriod : "none", this.sampleEvery);
        }

    }

    /**
     * One sample of a soak.
     *
     * @param seconds seconds since the load started
     * @param heapAfterGc used heap after full collections, bytes
     * @param threads live platform threads
     * @param otherThreads the same without the callers' and the simulator's handler
     * threads: the library's, the HTTP client's, the JVM's
     * @param started calls started
     * @param outcomes calls ended, by outcome
     * @param queued calls waiting in the model's queue
     * @param inFlight the model's calls in flight
     * @param redisDown whether the store was serving without Redis ({@code null} for the
     * memory store)
     * @param provider the faults the provider answered so far
     */
    public record Sample(double seconds, long heapAfterGc, int threads, int otherThreads, long started,
            Map<String, Long> outcomes, int queued, int inFlight, @Nullable Boolean redisDown,
            @Nullable ProviderFaults provider) {

        static final Sample HEADER = new Sample(-1, 0, 0, 0, 0, Map.of(), 0, 0, null, null);

        static Sample take(long start, Outcomes outcomes, ModelLimiter limiter, @Nullable StoreWatcher watcher,
                SimulatorStats provider) {
            long heap = Heap.usedAfterGc();
            LimiterState state = limiter.state();
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            int all = 0;
            int own = 0;
            for (ThreadInfo thread : threads.getThreadInfo(threads.getAllThreadIds())) {
                if (thread != null) {
                    all++;
                    String name = thread.getThreadName();
                    if (!name.startsWith(CALLER_PREFIX) && !name.startsWith("llm-simulator-")) {
                        own++;
                    }
                }
            }
            return new Sample((System.nanoTime() - start) / 1e9, heap, all, own, outcomes.started(),
                    outcomes.byOutcome(), state.queued().total(), state.inFlight(),
                    (watcher != null) ? watcher.down : null,
                    // only the counts: the provider's per-second series would make every
                    // sample kept hold a copy of the run so far
                    new ProviderFaults(provider.rateLimited(), provider.overloaded(), provider.connectionResets()));
        }

        /**
         * The calls ended, whatever their outcome.
         * @return the count
         */
        public long ended() {
            return this.outcomes.values().stream().mapToLong(Long::longValue).sum();
        }

        /** The same sample, as taken {@code seconds} into the run. */
        Sample at(double seconds) {
            return new Sample(seconds, this.heapAfterGc, this.threads, this.otherThreads, this.started, this.outcomes,
                    this.queued, this.inFlight, this.redisDown, this.provider);
        }

        /**
         * This sample as a row of the Markdown table, or the table's header.
         * @return the row
         */
        public String row() {
            if (this == HEADER) {
                return "| t (s) | heap after GC | threads | without callers, simulator | started | ended | running | succeeded | "
                        + "AdmissionTimeout | QueueFull | RetriesExhausted | other | queued | inFlight | 429s | 529s "
                        + "| resets | Redis |\n"
                        + "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|";
            }
            long other = ended() - COLUMNS.stream().mapToLong((name) -> this.outcomes.getOrDefault(name, 0L)).sum();
            ProviderFaults stats = this.provider;
            return String.format(Locale.ROOT,
                    "| %.0f | %.1f MB | %d | %d | %,d | %,d | %,d | %,d | %,d | %,d | %,d | %,d | %d | %d | %,d | %,d | %,d "
                            + "| %s |",
                    this.seconds, this.heapAfterGc / 1024.0 / 1024, this.threads, this.otherThreads, this.started,
                    ended(), this.started - ended(), this.outcomes.getOrDefault(COLUMNS.get(0), 0L),
                    this.outcomes.getOrDefault(COLUMNS.get(1), 0L), this.outcomes.getOrDefault(COLUMNS.get(2), 0L),
                    this.outcomes.getOrDefault(COLUMNS.get(3), 0L), other, this.queued, this.inFlight,
                    (stats != null) ? stats.rateLimited() : 0, (stats != null) ? stats.overloaded() : 0,
                    (stats != null) ? stats.connectionResets() : 0,
                    (this.redisDown == null) ? "–" : this.redisDown ? "down (local buckets)" : "up");
        }

    }

    /**
     * The faults the provider answered so far.
     *
     * @param rateLimited 429s
     * @param overloaded 529s
     * @param connectionResets connections reset
     */
    public record ProviderFaults(long rateLimited, long overloaded, long connectionResets) {

    }

    /**
     * What a soak measured.
     *
     * @param settings what ran
     * @param started calls started
     * @param outcomes calls ended, by outcome
     * @param untyped calls that failed with something else than an
     * {@link LlmThrottleException}
     * @param offered how long calls were offered
     * @param tail from the last call offered to the last call ended
     * @param samples the samples, the last one at the end
     * @param faults the faults the schedule injected
     * @param provider what the provider saw
     * @param inFlight calls in flight at the end, over every limiter
     * @param queued calls queued at the end, over every limiter
     * @param providerInFlight requests the provider was still serving at the end
     * @param state the model's limiter state at the end
     * @param redisOutages when the store served calls without Redis (from, to; seconds
     * into the run)
     * @param succeededWithoutRedis calls that succeeded while the store was without Redis
     * @param redisKeys keys in the soak's Redis at the end, -1 without Redis
     * @param threadGroups the live platform threads at the end, by name with digits left
     * out
     */
    public record Result(Settings settings, long started, Map<String, Long> outcomes, long untyped, Duration offered,
            Duration tail, List<Sample> samples, Map<String, Long> faults, SimulatorStats provider, int inFlight,
            int queued, int providerInFlight, LimiterState state, List<Duration[]> redisOutages,
            long succeededWithoutRedis, long redisKeys, Map<String, Long> threadGroups) {

        /**
         * The calls ended, whatever their outcome.
         * @return the count
         */
        public long ended() {
            return this.outcomes.values().stream().mapToLong(Long::longValue).sum();
        }

        /**
         * What went wrong, empty when every invariant held.
         * @return the problems
         */
        public List<String> problems() {
            List<String> problems = new ArrayList<>();
            if (ended() != this.started) {
                problems.add("calls started " + this.started + ", ended " + ended());
            }
            if (this.untyped != 0) {
                problems.add(this.untyped + " calls failed with an exception that is not an LlmThrottleException");
            }
            if (this.inFlight != 0 || this.queued != 0) {
                problems.add("left behind: inFlight " + this.inFlight + ", queued " + this.queued);
            }
            if (this.providerInFlight != 0) {
                problems.add("requests still open at the provider: " + this.providerInFlight);
            }
            return problems;
        }

        /**
         * The warm-up left out of the figures after it: the minute's burst, then the
         * queue filling to max-wait's worth of calls (two minutes), or the first fifth of
         * a longer run, but at most half of the run.
         */
        private double warmUpSeconds() {
            double offered = this.offered.toNanos() / 1e9;
            return Math.min(offered / 2, Math.max(120, offered / 5));
        }

        /**
         * The least squares slope of a series over the samples after warm-up (the first
         * fifth of the run), per minute.
         */
        private double slopePerMinute(java.util.function.ToDoubleFunction<Sample> value) {
            double warmUp = warmUpSeconds();
            List<Sample> steady = this.samples.stream()
                .filter((sample) -> sample.seconds() >= warmUp && sample.seconds() <= this.offered.toNanos() / 1e9 + 1)
                .toList();
            int n = steady.size();
            if (n < 2) {
                return Double.NaN;
            }
            double mx = steady.stream().mapToDouble(Sample::seconds).average().orElse(0);
            double my = steady.stream().mapToDouble(value).average().orElse(0);
            double sxy = 0;
            double sxx = 0;
            for (Sample sample : steady) {
                sxy += (sample.seconds() - mx) * (value.applyAsDouble(sample) - my);
                sxx += (sample.seconds() - mx) * (sample.seconds() - mx);
            }
            return (sxx > 0) ? sxy / sxx * 60 : Double.NaN;
        }

        /**
         * The figures, as lines of text.
         * @return the report
         */
        public String report() {
            StringBuilder text = new StringBuilder();
            text.append(String.format(Locale.ROOT, "calls: started %,d, ended %,d: %s%n", this.started, ended(),
                    Outcomes.format(this.outcomes)));
            text.append(String.format(Locale.ROOT, "offered for %.1f s; the last call ended %.1f s later%n",
                    this.offered.toNanos() / 1e9, this.tail.toNanos() / 1e9));
            text.append(String.format(Locale.ROOT,
                    "provider: %,d requests, %,d succeeded, %,d 429s, %,d 529s, %,d other errors, %,d connections "
                            + "reset%n",
                    this.provider.attempts(), this.provider.successes(), this.provider.rateLimited(),
                    this.provider.overloaded(), this.provider.otherErrors(), this.provider.connectionResets()));
            text.append("faults scheduled: ").append(this.faults).append(System.lineSeparator());
            List<Sample> steady = this.samples.stream()
                .filter((sample) -> sample.seconds() >= warmUpSeconds()
                        && sample.seconds() <= this.offered.toNanos() / 1e9 + 1)
                .toList();
            if (!steady.isEmpty()) {
                text.append(String.format(Locale.ROOT,
                        "after warm-up (%d samples): heap after GC %.1f–%.1f MB (slope %+.2f MB a minute), "
                                + "threads without callers and simulator %d–%d (slope %+.1f a minute)%n",
                        steady.size(), steady.stream().mapToLong(Sample::heapAfterGc).min().getAsLong() / 1048576.0,
                        steady.stream().mapToLong(Sample::heapAfterGc).max().getAsLong() / 1048576.0,
                        slopePerMinute((sample) -> sample.heapAfterGc() / 1048576.0),
                        steady.stream().mapToInt(Sample::otherThreads).min().getAsInt(),
                        steady.stream().mapToInt(Sample::otherThreads).max().getAsInt(),
                        slopePerMinute(Sample::otherThreads)));
            }
            if (this.settings.redisPort() > 0) {
                StringBuilder outages = new StringBuilder();
                for (Duration[] outage : this.redisOutages) {
                    outages.append(String.format(Locale.ROOT, " %.1f–%.1f s", outage[0].toMillis() / 1000.0,
                            outage[1].toMillis() / 1000.0));
                }
                text.append(String.format(Locale.ROOT,
                        "Redis: store without Redis during%s; %,d calls succeeded meanwhile (on local buckets); "
                                + "%,d keys in Redis at the end%n",
                        (outages.length() > 0) ? outages : " (never)", this.succeededWithoutRedis, this.redisKeys));
            }
            text.append(String.format(Locale.ROOT,
                    "at the end: inFlight %d, queued %d (every limiter); provider in flight %d%n", this.inFlight,
                    this.queued, this.providerInFlight));
            text.append("platform threads at the end: ").append(this.threadGroups).append(System.lineSeparator());
            List<String> problems = problems();
            text.append(problems.isEmpty() ? "invariants: every call accounted for, all typed, nothing left behind"
                    : "PROBLEMS: " + problems);
            return text.toString();
        }

    }

}
