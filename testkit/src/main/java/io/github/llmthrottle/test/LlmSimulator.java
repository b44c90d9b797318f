package io.github.llmthrottle.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;
import io.github.bucket4j.TimeMeter;
import org.jspecify.annotations.Nullable;

/**
 * A simulated LLM provider on a real loopback port. It serves the Anthropic Messages API
 * ({@code POST /v1/messages}, {@code POST /v1/messages/count_tokens}) and the OpenAI Chat
 * Completions API ({@code POST /v1/chat/completions}, also {@code /chat/completions}),
 * enforces per-minute rate limits with continuously refilling token buckets per API key
 * and model, sends the providers' rate-limit headers on every response, and injects
 * faults on demand. <pre>{@code
 * try (LlmSimulator simulator = LlmSimulator.builder()
 *         .model("claude-opus-4-7", ModelLimits.of(50, 30_000, 8_000))
 *         .latency(Duration.ofMillis(20), Duration.ofNanos(200_000))
 *         .start()) {
 *     simulator.script("claude-opus-4-7", Fault.status(429).retryAfter("1"), Fault.overloaded(), Fault.ok());
 *     // point the client at simulator.baseUrl()
 * }
 * }</pre>
 * <p>
 * <b>Admission.</b> A request is admitted only if every limited dimension has room (all
 * or nothing). Anthropic requests debit RPM by 1, ITPM by the input estimate
 * ({@link TokenEstimate}) and OTPM by {@code max_tokens}; at the end the unused part of
 * {@code max_tokens} is refunded. OpenAI requests debit RPM by 1 and TPM by
 * {@code prompt + max_tokens}, refunded to {@code prompt + actual output}. A request that
 * does not fit gets a 429 with the dialect's error body and {@code retry-after} (whole
 * seconds, rounded up, until it would fit); one that can never fit (more than a whole
 * bucket) gets a 429 without {@code retry-after}.
 * <p>
 * <b>Order of decisions</b> for a valid request: the model's script, then the any-model
 * script; if no script entry or {@link Fault#ok()}: an active outage, then the
 * concurrency cap, then (only without a script entry) the random faults; then the
 * rate-limit buckets. Faults never debit buckets.
 * <p>
 * <b>Output.</b> The output is deterministic: {@link OutputTokens} (default 100 tokens)
 * clamped to {@code [1, max_tokens]}, four characters of text per token. Latency is
 * {@code base + perOutputToken × output tokens} (default 20 ms + 0.2 ms per token), slept
 * without holding any lock; a stream sleeps the base before the first delta and the
 * per-token part before each delta.
 * <p>
 * Every runtime setter is thread-safe and takes effect for the next request.
 * {@link #reset()} restores the built configuration. The model name {@value #ANY_MODEL}
 * stands for every model in {@link #script}, {@link #setRandomFaults}, {@link #outage}
 * and {@link #setConcurrencyLimit}.
 */
public final class LlmSimulator implements AutoCloseable {

    /** The model name that stands for every model. */
    public static final String ANY_MODEL = "*";

    static {
        // Without TCP_NODELAY the JDK server's separate header and body writes meet the
        // client's delayed ACK, adding about 40 ms to every response. The JDK server
        // reads this property once, when its configuration class loads; an explicit
        // setting by the application wins.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final Config initial;

    private final Clock clock;

    private final HttpServer server;

    private final ThreadPoolExecutor executor;

    private final RateLimiter limiter;

    private final StatsRecorder stats = new StatsRecorder();

    private final AtomicBoolean closed = new AtomicBoolean();

    private final AtomicInteger inFlight = new AtomicInteger();

    private final ConcurrentHashMap<String, AtomicInteger> inFlightByModel = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<String, ModelLimits> limits = new ConcurrentHashMap<>();

    private volatile ModelLimits defaultLimits;

    private volatile Duration baseLatency;

    private volatile Duration perTokenLatency;

    private volatile OutputTokens outputTokens;

    private volatile Random random;

    private final ConcurrentHashMap<String, RandomFaults> randomFaults = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<String, Queue<Fault>> scripts = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<String, Outage> outages = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<String, ConcurrencyLimit> concurrencyLimits = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<String, String> headerOverrides = new ConcurrentHashMap<>();

    private final Set<String> removedHeaders = ConcurrentHashMap.newKeySet();

    private LlmSimulator(Config config) throws IOException {
        this.initial = config;
        this.clock = config.clock;
        TimeMeter meter = (config.clock == Builder.SYSTEM_CLOCK) ? TimeMeter.SYSTEM_NANOTIME
                : new ClockTimeMeter(config.clock);
        this.limiter = new RateLimiter(meter, this::limitsFor, config.bucketWindow);
        this.defaultLimits = config.defaultLimits;
        this.baseLatency = config.baseLatency;
        this.perTokenLatency = config.perTokenLatency;
        this.outputTokens = config.outputTokens;
        this.random = new Random(config.seed);
        applyInitialConfig();
        this.executor = new ThreadPoolExecutor(config.threads, config.threads, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), new DaemonThreads());
        this.executor.allowCoreThreadTimeOut(true);
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), config.port), 1024);
        this.server.createContext("/", new SimulatorHandler(this));
        this.server.setExecutor(this.executor);
        this.server.start();
    }

    /**
     * Starts configuring a simulator.
     * @return a builder with the defaults: no limits, 20 ms + 0.2 ms per output token,
     * 100 output tokens, no faults, any port, no API key required
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts a simulator with the defaults of {@link #builder()}.
     * @return the running simulator
     */
    public static LlmSimulator start() {
        return builder().start();
    }

    /**
     * The base URL, {@code http://127.0.0.1:<port>}: use it as the Anthropic base URL, or
     * as the OpenAI base URL for clients that append {@code /v1/chat/completions}.
     * @return the base URL without a trailing slash
     */
    public String baseUrl() {
        return "http://" + this.server.getAddress().getAddress().getHostAddress() + ":" + port();
    }

    /**
     * The base URL with {@code /v1}, for OpenAI clients that append
     * {@code /chat/completions}.
     * @return the OpenAI-style base URL
     */
    public String openAiBaseUrl() {
        return baseUrl() + "/v1";
    }

    /**
     * The port the simulator listens on.
     * @return the port
     */
    public int port() {
        return this.server.getAddress().getPort();
    }

    /**
     * The clock the simulator reads: reset headers, outages, stats series and (when it is
     * not the system clock) bucket refill follow it.
     * @return the clock
     */
    public Clock clock() {
        return this.clock;
    }

    // ---- limits

    /**
     * Sets the limits of a model. Existing buckets keep their level, capped at the new
     * capacity.
     * @param model the model name
     * @param limits the new limits
     * @return this simulator
     */
    public LlmSimulator setLimits(String model, ModelLimits limits) {
        this.limits.put(model, limits);
        return this;
    }

    /**
     * Sets the limits of every model that has no limits of its own.
     * @param limits the new default
     * @return this simulator
     */
    public LlmSimulator setDefaultLimits(ModelLimits limits) {
        this.defaultLimits = Objects.requireNonNull(limits, "limits");
        return this;
    }

    /**
     * The limits currently enforced for a model.
     * @param model the model name
     * @return its limits, or the default limits
     */
    public ModelLimits limitsFor(String model) {
        ModelLimits own = this.limits.get(model);
        return (own != null) ? own : this.defaultLimits;
    }

    /**
     * Reads the buckets of an API key and model without changing them.
     * @param apiKey the API key ({@code ""} for requests without one)
     * @param model the model name
     * @return the available tokens per dimension
     */
    public BucketLevels levels(String apiKey, String model) {
        Map<RateLimiter.Dimension, RateLimiter.Level> levels = this.limiter.levels(new RateLimiter.Key(apiKey, model));
        return new BucketLevels(available(levels, RateLimiter.Dimension.REQUESTS),
                available(levels, RateLimiter.Dimension.INPUT_TOKENS),
                available(levels, RateLimiter.Dimension.OUTPUT_TOKENS),
                available(levels, RateLimiter.Dimension.TOKENS));
    }

    private static long available(Map<RateLimiter.Dimension, RateLimiter.Level> levels, RateLimiter.Dimension d) {
        RateLimiter.Level level = levels.get(d);
        return (level != null) ? level.available() : Long.MAX_VALUE;
    }

    /**
     * Fills every bucket of every key and model (they are created full on their next
     * use).
     * @return this simulator
     */
    public LlmSimulator refillBuckets() {
        this.limiter.clear();
        return this;
    }

    // ---- latency and output

    /**
     * Sets the latency of the following requests.
     * @param base the time before the response (before the first delta of a stream)
     * @param perOutputToken the extra time per generated output token
     * @return this simulator
     */
    public LlmSimulator setLatency(Duration base, Duration perOutputToken) {
        this.baseLatency = nonNegative(base);
        this.perTokenLatency = nonNegative(perOutputToken);
        return this;
    }

    /**
     * Sets how many output tokens the following requests generate.
     * @param outputTokens the policy
     * @return this simulator
     */
    public LlmSimulator setOutputTokens(OutputTokens outputTokens) {
        this.outputTokens = Objects.requireNonNull(outputTokens, "outputTokens");
        return this;
    }

    // ---- faults

    /**
     * Appends faults to a model's script: each of the next requests for the model takes
     * the next fault (after any already scripted), before anything else is decided.
     * @param model the model name, or {@value #ANY_MODEL} for a script that any model's
     * requests consume once the model's own script is empty
     * @param faults the faults, in order
     * @return this simulator
     */
    public LlmSimulator script(String model, Fault... faults) {
        Queue<Fault> queue = this.scripts.computeIfAbsent(model, (m) -> new ConcurrentLinkedQueue<>());
        queue.addAll(Arrays.asList(faults));
        return this;
    }

    /**
     * How many scripted faults are still waiting for a model.
     * @param model the model name, or {@value #ANY_MODEL}
     * @return the number of faults not yet consumed
     */
    public int pendingScript(String model) {
        Queue<Fault> queue = this.scripts.get(model);
        return (queue != null) ? queue.size() : 0;
    }

    /**
     * Sets the random fault probabilities of a model.
     * @param model the model name, or {@value #ANY_MODEL} for models without their own
     * @param faults the probabilities
     * @return this simulator
     */
    public LlmSimulator setRandomFaults(String model, RandomFaults faults) {
        this.randomFaults.put(model, Objects.requireNonNull(faults, "faults"));
        return this;
    }

    /**
     * Re-seeds the random source of the random faults.
     * @param seed the seed
     * @return this simulator
     */
    public LlmSimulator setSeed(long seed) {
        this.random = new Random(seed);
        return this;
    }

    /**
     * Starts an outage: the model answers {@link Fault#overloaded()} (Anthropic 529,
     * OpenAI 503) until the simulator's clock has advanced by {@code duration}.
     * @param model the model name, or {@value #ANY_MODEL}
     * @param duration how long the outage lasts
     * @return this simulator
     */
    public LlmSimulator outage(String model, Duration duration) {
        return outage(model, duration, Fault.overloaded());
    }

    /**
     * Starts an outage that answers with the given fault, for example
     * {@code Fault.status(503)}.
     * @param model the model name, or {@value #ANY_MODEL}
     * @param duration how long the outage lasts
     * @param fault the answer during the outage
     * @return this simulator
     */
    public LlmSimulator outage(String model, Duration duration, Fault fault) {
        this.outages.put(model, new Outage(this.clock.instant().plus(nonNegative(duration)), fault));
        return this;
    }

    /**
     * Ends an outage early.
     * @param model the model name, or {@value #ANY_MODEL}
     * @return this simulator
     */
    public LlmSimulator endOutage(String model) {
        this.outages.remove(model);
        return this;
    }

    /**
     * Caps the requests in flight: a request that arrives while {@code maxInFlight} are
     * already being served is rejected with {@code rejectStatus} (429
     * {@code rate_limit_error} / {@code rate_limit_exceeded}, or 529, or any error
     * status), without {@code retry-after}.
     * @param model the model name, or {@value #ANY_MODEL} to cap all requests together
     * @param maxInFlight the most requests served at once; 0 removes the cap
     * @param rejectStatus the status for requests beyond the cap
     * @return this simulator
     */
    public LlmSimulator setConcurrencyLimit(String model, int maxInFlight, int rejectStatus) {
        if (maxInFlight <= 0) {
            this.concurrencyLimits.remove(model);
        }
        else {
            this.concurrencyLimits.put(model, new ConcurrencyLimit(maxInFlight, rejectStatus));
        }
        return this;
    }

    /**
     * Overrides a header on every following response (success and error); a {@code null}
     * value removes the header. Scripted fault headers still win over this.
     * @param name the header name (case-insensitive)
     * @param value the value, or {@code null} to remove the header
     * @return this simulator
     */
    public LlmSimulator setHeader(String name, @Nullable String value) {
        String key = name.toLowerCase(Locale.ROOT);
        if (value == null) {
            this.headerOverrides.remove(key);
            this.removedHeaders.add(key);
        }
        else {
            this.removedHeaders.remove(key);
            this.headerOverrides.put(key, value);
        }
        return this;
    }

    /**
     * Removes all scripts, outages, random faults, concurrency caps and header overrides,
     * including those given to the builder.
     * @return this simulator
     */
    public LlmSimulator clearFaults() {
        this.scripts.clear();
        this.outages.clear();
        this.randomFaults.clear();
        this.concurrencyLimits.clear();
        this.headerOverrides.clear();
        this.removedHeaders.clear();
        return this;
    }

    // ---- stats

    /**
     * What the simulator saw for all models since start or the last reset.
     * @return a snapshot
     */
    public SimulatorStats stats() {
        return this.stats.snapshot();
    }

    /**
     * What the simulator saw for one model since start or the last reset.
     * @param model the model name
     * @return a snapshot (all zero for a model never requested)
     */
    public SimulatorStats stats(String model) {
        return this.stats.snapshot(model);
    }

    /**
     * Requests being served right now.
     * @return the requests in flight
     */
    public int inFlight() {
        return this.inFlight.get();
    }

    /**
     * Zeroes the statistics. The peak concurrency starts again from the requests in
     * flight.
     * @return this simulator
     */
    public LlmSimulator resetStats() {
        this.stats.reset();
        return this;
    }

    /**
     * Restores the configuration the simulator was built with: limits, latency, output
     * policy, random faults (re-seeded), concurrency caps; removes scripts, outages and
     * header overrides; refills every bucket; zeroes the statistics. The port, clock and
     * API keys do not change.
     * @return this simulator
     */
    public LlmSimulator reset() {
        clearFaults();
        this.limits.clear();
        this.defaultLimits = this.initial.defaultLimits;
        this.baseLatency = this.initial.baseLatency;
        this.perTokenLatency = this.initial.perTokenLatency;
        this.outputTokens = this.initial.outputTokens;
        this.random = new Random(this.initial.seed);
        applyInitialConfig();
        this.limiter.clear();
        this.stats.reset();
        return this;
    }

    private void applyInitialConfig() {
        this.limits.putAll(this.initial.limits);
        this.randomFaults.putAll(this.initial.randomFaults);
        this.concurrencyLimits.putAll(this.initial.concurrencyLimits);
    }

    /**
     * Stops the server at once: open connections are closed and handler threads
     * interrupted. Idempotent.
     */
    @Override
    public void close() {
        if (!this.closed.compareAndSet(false, true)) {
            return;
        }
        this.server.stop(0);
        this.executor.shutdownNow();
        try {
            this.executor.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "LlmSimulator[" + baseUrl() + "]";
    }

    // ---- used by the handler

    Instant now() {
        return this.clock.instant();
    }

    RateLimiter limiter() {
        return this.limiter;
    }

    StatsRecorder recorder() {
        return this.stats;
    }

    Duration baseLatency() {
        return this.baseLatency;
    }

    Duration perTokenLatency() {
        return this.perTokenLatency;
    }

    OutputTokens outputTokens() {
        return this.outputTokens;
    }

    int tokensPerEvent() {
        return this.initial.tokensPerEvent;
    }

    boolean roundRemaining() {
        return this.initial.roundRemaining;
    }

    /**
     * @return {@code null} when the key is acceptable, else whether it was missing
     */
    @Nullable Boolean rejectKey(String apiKey) {
        boolean required = this.initial.requireApiKey || !this.initial.apiKeys.isEmpty();
        if (required && apiKey.isEmpty()) {
            return Boolean.TRUE;
        }
        if (!this.initial.apiKeys.isEmpty() && !this.initial.apiKeys.contains(apiKey)) {
            return Boolean.FALSE;
        }
        return null;
    }

    @Nullable Fault pollScript(String model) {
        Queue<Fault> own = this.scripts.get(model);
        Fault fault = (own != null) ? own.poll() : null;
        if (fault == null) {
            Queue<Fault> any = this.scripts.get(ANY_MODEL);
            fault = (any != null) ? any.poll() : null;
        }
        return fault;
    }

    @Nullable Fault activeOutage(String model) {
        Instant now = now();
        for (String key : new String[] { model, ANY_MODEL }) {
            Outage outage = this.outages.get(key);
            if (outage != null) {
                if (now.isBefore(outage.until())) {
                    return outage.fault();
                }
                this.outages.remove(key, outage);
            }
        }
        return null;
    }

    @Nullable ConcurrencyLimit exceededConcurrency(String model, int global, int forModel) {
        ConcurrencyLimit own = this.concurrencyLimits.get(model);
        if (own != null && forModel > own.max()) {
            return own;
        }
        ConcurrencyLimit all = this.concurrencyLimits.get(ANY_MODEL);
        return (all != null && global > all.max()) ? all : null;
    }

    @Nullable Fault randomFault(String model) {
        RandomFaults faults = this.randomFaults.get(model);
        if (faults == null) {
            faults = this.randomFaults.get(ANY_MODEL);
        }
        return (faults == null || faults.isNone()) ? null : faults.pick(this.random.nextDouble());
    }

    void overrideHeaders(Map<String, String> headers) {
        headers.putAll(this.headerOverrides);
        headers.keySet().removeAll(this.removedHeaders);
    }

    int enter(String model) {
        return this.inFlightByModel.computeIfAbsent(model, (m) -> new AtomicInteger()).incrementAndGet();
    }

    int enterGlobal() {
        return this.inFlight.incrementAndGet();
    }

    void exit(String model) {
        this.inFlight.decrementAndGet();
        this.inFlightByModel.get(model).decrementAndGet();
    }

    private static Duration nonNegative(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("Duration must not be negative: " + duration);
        }
        return duration;
    }

    record Outage(Instant until, Fault fault) {
    }

    record ConcurrencyLimit(int max, int status) {
    }

    private record Config(int port, Map<String, ModelLimits> limits, ModelLimits defaultLimits, Duration baseLatency,
            Duration perTokenLatency, OutputTokens outputTokens, Map<String, RandomFaults> randomFaults,
            Map<String, ConcurrencyLimit> concurrencyLimits, long seed, Clock clock, Set<String> apiKeys,
            boolean requireApiKey, int tokensPerEvent, boolean roundRemaining, int threads, Duration bucketWindow) {
    }

    private static final class ClockTimeMeter implements TimeMeter {

        private final Clock clock;

        ClockTimeMeter(Clock clock) {
            this.clock = clock;
        }

        @Override
        public long currentTimeNanos() {
            Instant now = this.clock.instant();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        }

        @Override
        public boolean isWallClockBased() {
            return true;
        }

    }

    private static final class DaemonThreads implements ThreadFactory {

        private static final AtomicInteger POOLS = new AtomicInteger();

        private final int pool = POOLS.incrementAndGet();

        private final AtomicInteger count = new AtomicInteger();

        @Override
        public Thread newThread(Runnable runnable) {
            Thread thread = new Thread(runnable, "llm-simulator-" + this.pool + "-" + this.count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }

    }

    /**
     * Configures and starts an {@link LlmSimulator}. Not thread-safe; reusable (each
     * {@link #start()} starts a new simulator).
     */
    public static final class Builder {

        static final Clock SYSTEM_CLOCK = Clock.systemUTC();

        private int port;

        private final Map<String, ModelLimits> limits = new LinkedHashMap<>();

        private ModelLimits defaultLimits = ModelLimits.unlimited();

        private Duration baseLatency = Duration.ofMillis(20);

        private Duration perTokenLatency = Duration.ofNanos(200_000);

        private OutputTokens outputTokens = OutputTokens.fixed(100);

        private final Map<String, RandomFaults> randomFaults = new LinkedHashMap<>();

        private final Map<String, ConcurrencyLimit> concurrencyLimits = new LinkedHashMap<>();

        private long seed = 42;

        private Clock clock = SYSTEM_CLOCK;

        private Set<String> apiKeys = Set.of();

        private boolean requireApiKey;

        private int tokensPerEvent = 4;

        private boolean roundRemaining = true;

        private int threads = 200;

        private Duration bucketWindow = Duration.ofMinutes(1);

        private Builder() {
        }

        /**
         * Sets the limits of one model.
         * @param model the model name
         * @param limits its limits
         * @return this builder
         */
        public Builder model(String model, ModelLimits limits) {
            this.limits.put(Objects.requireNonNull(model, "model"), Objects.requireNonNull(limits, "limits"));
            return this;
        }

        /**
         * Sets the limits of models not configured with {@link #model}; the default is
         * {@link ModelLimits#unlimited()}.
         * @param limits the default limits
         * @return this builder
         */
        public Builder defaultLimits(ModelLimits limits) {
            this.defaultLimits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * Listens on a fixed port instead of a free one.
         * @param port the port, 0 for any free port
         * @return this builder
         */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /**
         * Sets the latency (default 20 ms + 0.2 ms per output token).
         * @param base the time before the response
         * @param perOutputToken the extra time per output token
         * @return this builder
         */
        public Builder latency(Duration base, Duration perOutputToken) {
            this.baseLatency = nonNegative(base);
            this.perTokenLatency = nonNegative(perOutputToken);
            return this;
        }

        /**
         * Answers without any latency.
         * @return this builder
         */
        public Builder noLatency() {
            return latency(Duration.ZERO, Duration.ZERO);
        }

        /**
         * Generates {@code min(max_tokens, typical)} output tokens per request (default
         * 100).
         * @param typical the typical output
         * @return this builder
         */
        public Builder outputTokens(int typical) {
            return outputTokens(OutputTokens.fixed(typical));
        }

        /**
         * Sets the output policy.
         * @param outputTokens the policy
         * @return this builder
         */
        public Builder outputTokens(OutputTokens outputTokens) {
            this.outputTokens = Objects.requireNonNull(outputTokens, "outputTokens");
            return this;
        }

        /**
         * Sets random fault probabilities for all models.
         * @param faults the probabilities
         * @return this builder
         */
        public Builder randomFaults(RandomFaults faults) {
            return randomFaults(ANY_MODEL, faults);
        }

        /**
         * Sets random fault probabilities for one model.
         * @param model the model name, or {@value LlmSimulator#ANY_MODEL}
         * @param faults the probabilities
         * @return this builder
         */
        public Builder randomFaults(String model, RandomFaults faults) {
            this.randomFaults.put(model, Objects.requireNonNull(faults, "faults"));
            return this;
        }

        /**
         * Seeds the random source of random faults (default 42).
         * @param seed the seed
         * @return this builder
         */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /**
         * Sets the clock for buckets, reset headers, outages and stats (default the
         * system clock). A {@link ManualClock} makes limit behaviour testable without
         * sleeping.
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Accepts only these API keys ({@code x-api-key} or
         * {@code Authorization: Bearer}); other or missing keys get 401.
         * @param keys the valid keys
         * @return this builder
         */
        public Builder apiKeys(String... keys) {
            this.apiKeys = Set.copyOf(Arrays.asList(keys));
            return this;
        }

        /**
         * Requires some API key on every request (any value); a missing key gets 401.
         * @param required whether a key is required
         * @return this builder
         */
        public Builder requireApiKey(boolean required) {
            this.requireApiKey = required;
            return this;
        }

        /**
         * Caps the requests in flight, see {@link LlmSimulator#setConcurrencyLimit}.
         * @param model the model name, or {@value LlmSimulator#ANY_MODEL} for all
         * requests together
         * @param maxInFlight the cap
         * @param rejectStatus the status for requests beyond it
         * @return this builder
         */
        public Builder concurrencyLimit(String model, int maxInFlight, int rejectStatus) {
            this.concurrencyLimits.put(model, new ConcurrencyLimit(maxInFlight, rejectStatus));
            return this;
        }

        /**
         * Sets how many output tokens each stream delta carries (default 4).
         * @param tokens tokens per delta, at least 1
         * @return this builder
         */
        public Builder tokensPerStreamEvent(int tokens) {
            if (tokens < 1) {
                throw new IllegalArgumentException("At least one token per event");
            }
            this.tokensPerEvent = tokens;
            return this;
        }

        /**
         * Whether Anthropic's token {@code -remaining} headers are rounded to the nearest
         * thousand as the real API does (default true). Turn it off for exact figures
         * with small limits.
         * @param round whether to round
         * @return this builder
         */
        public Builder roundRemainingTokens(boolean round) {
            this.roundRemaining = round;
            return this;
        }

        /**
         * Sets the most requests served at once by handler threads (default 200); more
         * wait in a queue. Each request in its latency holds a thread.
         * @param threads the thread count
         * @return this builder
         */
        public Builder threads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("At least one thread");
            }
            this.threads = threads;
            return this;
        }

        /**
         * Makes every bucket hold {@code window}'s worth of its per-minute limit instead
         * of a whole minute's (the default), refilling at the same rate: a provider that
         * enforces its per-minute limit over a shorter interval, as Anthropic says it may
         * ("60 requests per minute may be enforced as 1 request per second"). With a 20 s
         * window, a model limited to 60,000 input tokens a minute takes at most 20,000 at
         * once and refills 1,000 a second; a request needing more than 20,000 is refused
         * without {@code retry-after}. The headers report the per-minute limit as
         * {@code -limit}, what the bucket holds as {@code -remaining}, and the time it is
         * full again as {@code -reset}, as the providers do.
         * @param window how much of the limit a bucket holds, between 1 ms and one minute
         * @return this builder
         */
        public Builder bucketWindow(Duration window) {
            Objects.requireNonNull(window, "window");
            if (window.toMillis() < 1 || window.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException(
                        "The bucket window must be between 1 ms and one minute, was " + window);
            }
            this.bucketWindow = window;
            return this;
        }

        /**
         * Starts a simulator with this configuration.
         * @return the running simulator
         * @throws UncheckedIOException if the port cannot be bound
         */
        public LlmSimulator start() {
            Config config = new Config(this.port, Collections.unmodifiableMap(new LinkedHashMap<>(this.limits)),
                    this.defaultLimits, this.baseLatency, this.perTokenLatency, this.outputTokens,
                    Collections.unmodifiableMap(new LinkedHashMap<>(this.randomFaults)),
                    Collections.unmodifiableMap(new LinkedHashMap<>(this.concurrencyLimits)), this.seed, this.clock,
                    this.apiKeys, this.requireApiKey, this.tokensPerEvent, this.roundRemaining, this.threads,
                    this.bucketWindow);
            try {
                return new LlmSimulator(config);
            }
            catch (IOException ex) {
                throw new UncheckedIOException("Could not start the LLM simulator", ex);
            }
        }

    }

}
