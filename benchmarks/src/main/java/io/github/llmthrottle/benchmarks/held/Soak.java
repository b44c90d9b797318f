package io.github.llmthrottle.benchmarks.held;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.benchmarks.MessagesBodies;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.store.redis.RedisBucketStore;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.test.RandomFaults;
import io.github.llmthrottle.test.SimulatorStats;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;
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

    static final String CALLER_PREFIX = "soak-caller-";

    /** The calls a second the limits allow. */
    static final double LIMIT_PER_SECOND = REQUESTS_PER_MINUTE / 60.0;

    /** About 200 input tokens (the estimate is a token per four characters). */
    private static final String PROMPT = prose(800);

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
                ConfigurableApplicationContext context = SoakApplication.start(simulator.baseUrl(), redis != null,
                        properties.toArray(String[]::new))) {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            LimiterRegistry limiters = context.getBean(LimiterRegistry.class);
            ModelLimiter limiter = limiters.limiter("anthropic", MODEL);
            RedisBucketStore store = context.getBeanProvider(RedisBucketStore.class).getIfAvailable();
            String body = MessagesBodies.singleTurn(MODEL, 64, PROMPT);
            HeldCalls.post(client, body);
            simulator.resetStats();

            Outcomes outcomes = new Outcomes();
            LongAdder succeededWithoutRedis = new LongAdder();
            StoreWatcher watcher = (store != null) ? new StoreWatcher(store) : null;
            ThreadFactory threads = settings.threads().factory(CALLER_PREFIX);
            FaultSchedule faults = new FaultSchedule(settings, simulator, redis);
            List<SoakSample> taken = java.util.Collections.synchronizedList(new ArrayList<>());
            samples.accept(SoakSample.HEADER);
            // the first sample before the load starts, so that its collections do not
            // delay the first calls
            SoakSample first = SoakSample.take(System.nanoTime(), outcomes, limiter, watcher, simulator.stats(MODEL))
                .at(0);
            taken.add(first);
            samples.accept(first);
            long start = System.nanoTime();
            long end = start + settings.duration().toNanos();
            double rate = settings.overload() * LIMIT_PER_SECOND;
            Sampler sampler = new Sampler(start, settings.sampleEvery(), () -> {
                SoakSample sample = SoakSample.take(start, outcomes, limiter, watcher, simulator.stats(MODEL));
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
                        HeldCalls.post(client, body);
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
            LimiterState state = HeldCalls.awaitIdle(limiter);
            SoakSample last = SoakSample.take(start, outcomes, limiter, watcher, simulator.stats(MODEL));
            taken.add(last);
            samples.accept(last);
            if (watcher != null) {
                watcher.close();
            }
            long redisKeys = (redis != null) ? redis.keys() : -1;
            int inFlight = HeldCalls.inFlight(limiters);
            int queued = HeldCalls.queued(limiters);
            if (redis != null) {
                context.close();
                redis.stopIfOwned();
            }
            Map<String, Long> threadGroups = SoakReport.threadGroups();
            return new Result(settings, outcomes.started(), outcomes.byOutcome(), outcomes.untyped(),
                    Duration.ofNanos(offered), Duration.ofNanos(drainedAfter), List.copyOf(taken), faults.injected(),
                    simulator.stats(MODEL), inFlight, queued, simulator.inFlight(), state,
                    (watcher != null) ? watcher.outages() : List.of(), succeededWithoutRedis.sum(), redisKeys,
                    threadGroups);
        }
    }

    private static String prose(int length) {
        String words = "the rate limit of each model is shared by every caller so a request waits for tokens ";
        StringBuilder text = new StringBuilder(length);
        while (text.length() < length) {
            text.append(words);
        }
        return text.substring(0, length);
    }

    /** Receives the samples of a soak as they are taken. */
    @FunctionalInterface
    public interface SampleListener {

        /**
         * One sample, or {@link SoakSample#HEADER} first.
         * @param sample the sample
         */
        void accept(SoakSample sample);

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
            Duration tail, List<SoakSample> samples, Map<String, Long> faults, SimulatorStats provider, int inFlight,
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
         * The figures, as lines of text.
         * @return the report
         */
        public String report() {
            return SoakReport.report(this);
        }

    }

}
