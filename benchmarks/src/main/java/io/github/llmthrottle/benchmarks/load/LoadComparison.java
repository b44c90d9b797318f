package io.github.llmthrottle.benchmarks.load;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.llmthrottle.benchmarks.MessagesBodies;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.test.SimulatorStats;

import org.springframework.web.client.RestClient;

/**
 * Offers the same load to each contender against its own fresh simulator (same limits,
 * latency and request bodies), on loopback, and prints a Markdown table. Each run is
 * bounded: the load lasts {@code --seconds}, and calls still running
 * {@link LoadScenario#deadline()} later count as failed. <pre>
 * java -cp benchmarks/target/benchmarks.jar io.github.llmthrottle.benchmarks.load.LoadComparison \
 *     [--scenario steady|shifting|burst] [--seconds 20] [--rate CALLS_PER_SECOND] [--bucket-window SECONDS] \
 *     [--limits RPM,ITPM,OTPM] [--output MAX_TOKENS,OUTPUT_TOKENS] [--latency MILLIS] \
 *     [--late CALLS,MILLIS] [--only SUBSTRING[,SUBSTRING...]]
 * </pre> {@code steady} (the default) is {@link LoadScenario#twiceTheLimit(Duration)},
 * {@code shifting} is {@link LoadScenario#shiftingPrompts(Duration)}, {@code burst} is
 * {@link LoadScenario#startUpBurst(Duration)} with buckets of 20 s ({@code --seconds}
 * does not apply to it); {@code --bucket-window} makes the simulator's buckets hold that
 * many seconds of each limit (60 for a whole minute); {@code --late} makes the calls
 * after the first (for llm-throttle, the first wave after its probe) reach the provider's
 * buckets that much later (the simulator's delay before admission), as they may on a busy
 * machine. {@code --limits}, {@code --output} and {@code --latency} change the provider's
 * limits, the calls' {@code max_tokens} and answer length, and the provider's time to
 * answer. For llm-throttle it also prints which limit each 429 was for, and when, from
 * the 429's message.
 */
public final class LoadComparison {

    private LoadComparison() {
    }

    public static void main(String[] args) throws Exception {
        compare(args, ContenderSpec::all);
        System.exit(0);
    }

    /**
     * Parses the options of {@link #main(String[])}, runs the chosen scenario against
     * each of the given contenders whose name matches {@code --only}, and prints the
     * scenario, a line per contender and the Markdown table. Other modules with their own
     * classpath (the Spring AI contenders) run their contenders through it.
     * @param args the command-line options
     * @param contenders the contenders of a scenario, in the table's order
     * @return the results, in the table's order
     * @throws InterruptedException if interrupted
     */
    public static List<ContenderResult> compare(String[] args, Function<LoadScenario, List<ContenderSpec>> contenders)
            throws InterruptedException {
        Duration duration = Duration.ofSeconds(20);
        Duration window = null;
        Double rate = null;
        List<String> only = List.of();
        String scenarioName = "steady";
        int lateCalls = 0;
        Duration lateBy = Duration.ZERO;
        long[] limits = null;
        int[] output = null;
        Duration latency = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--scenario" -> scenarioName = args[++i];
                case "--seconds" -> duration = Duration.ofSeconds(Long.parseLong(args[++i]));
                case "--rate" -> rate = Double.parseDouble(args[++i]);
                case "--only" -> only = List.of(args[++i].toLowerCase(Locale.ROOT).split(","));
                case "--bucket-window" -> window = Duration.ofSeconds(Long.parseLong(args[++i]));
                case "--limits" -> limits = Arrays.stream(args[++i].split(",")).mapToLong(Long::parseLong).toArray();
                case "--output" -> output = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--latency" -> latency = Duration.ofMillis(Long.parseLong(args[++i]));
                case "--late" -> {
                    String[] late = args[++i].split(",");
                    lateCalls = Integer.parseInt(late[0]);
                    lateBy = Duration.ofMillis(Long.parseLong(late[1]));
                }
                default -> throw new IllegalArgumentException("Unknown argument " + args[i]
                        + "; use --scenario steady|shifting|burst, --seconds N, --rate R, --bucket-window S, "
                        + "--limits RPM,ITPM,OTPM, --output MAX_TOKENS,OUTPUT_TOKENS, --latency MILLIS, "
                        + "--late CALLS,MILLIS, --only a,b");
            }
        }
        LoadScenario scenario = switch (scenarioName) {
            case "steady" -> LoadScenario.twiceTheLimit(duration);
            case "shifting" -> LoadScenario.shiftingPrompts(duration);
            case "burst" -> LoadScenario.startUpBurst(Duration.ofSeconds(20));
            default -> throw new IllegalArgumentException(
                    "Unknown scenario " + scenarioName + "; use --scenario steady, shifting or burst");
        };
        if (window != null) {
            scenario = scenario.withBucketWindow(window);
        }
        if (rate != null) {
            scenario = scenario.withCallsPerSecond(rate);
        }
        if (limits != null) {
            if (limits.length != 3) {
                throw new IllegalArgumentException("--limits takes RPM,ITPM,OTPM, was " + Arrays.toString(limits));
            }
            scenario = scenario.withLimits(limits[0], limits[1], limits[2]);
        }
        if (output != null) {
            if (output.length != 2) {
                throw new IllegalArgumentException(
                        "--output takes MAX_TOKENS,OUTPUT_TOKENS, was " + Arrays.toString(output));
            }
            scenario = scenario.withOutput(output[0], output[1]);
        }
        if (latency != null) {
            scenario = scenario.withLatency(latency);
        }
        System.out.println(describe(scenario));
        if (lateCalls > 0) {
            System.out.printf(Locale.ROOT, "Calls 2 to %d reach the provider's buckets %d ms late.%n", lateCalls + 1,
                    lateBy.toMillis());
        }
        List<ContenderResult> results = new ArrayList<>();
        for (ContenderSpec spec : contenders.apply(scenario)) {
            String name = spec.name().toLowerCase(Locale.ROOT);
            if (!only.isEmpty() && only.stream().noneMatch(name::contains)) {
                continue;
            }
            System.out.println("running: " + spec.name());
            ContenderResult result = run(scenario, spec, lateCalls, lateBy);
            System.out.println("  " + row(result));
            results.add(result);
        }
        System.out.println();
        System.out.println(table(results));
        return results;
    }

    /**
     * The scenario in one paragraph, for the report.
     * @param scenario the scenario
     * @return the description
     */
    public static String describe(LoadScenario scenario) {
        String prompts = scenario.shifting()
                ? String.format(Locale.ROOT,
                        "prompts shifting halfway from about %.0f input tokens (50-150) to about %.0f (500-700), "
                                + "%.0f on average over the run",
                        scenario.earlierInputTokens(), scenario.laterInputTokens(), scenario.averageInputTokens())
                : "prompts of 50-350 input tokens (200 on average)";
        String window = scenario.bucketWindow().equals(Duration.ofMinutes(1)) ? "a minute"
                : scenario.bucketWindow().toSeconds() + " s";
        String burst = (scenario.burst() > 0) ? scenario.burst() + " calls at once, then " : "";
        return String.format(Locale.ROOT,
                "Scenario: Anthropic dialect, %s with RPM %,d, ITPM %,d, OTPM %,d, buckets holding %s of each; "
                        + "latency %d ms; %s, max_tokens %d, %d output tokens; the provider admits "
                        + "%.2f calls/s on average; offered %s%.1f calls/s for %.1f s (%d calls, a thread each)%s. "
                        + "JDK %s, %d CPUs.",
                scenario.model(), scenario.requestsPerMinute(), scenario.inputTokensPerMinute(),
                scenario.outputTokensPerMinute(), window, scenario.latency().toMillis(), prompts, scenario.maxTokens(),
                scenario.outputTokens(), scenario.bindingCallsPerSecond(), burst, scenario.callsPerSecond(),
                scenario.duration().toMillis() / 1000.0, scenario.calls(),
                scenario.drain() ? "; buckets drained first" : "; buckets full at the start", Runtime.version(),
                Runtime.getRuntime().availableProcessors());
    }

    /**
     * Runs one contender against a fresh simulator.
     * @param scenario the scenario
     * @param spec the contender
     * @return what it achieved
     * @throws InterruptedException if interrupted
     */
    public static ContenderResult run(LoadScenario scenario, ContenderSpec spec) throws InterruptedException {
        return run(scenario, spec, 0, Duration.ZERO);
    }

    /**
     * Runs one contender against a fresh simulator where the calls after the first reach
     * the provider's buckets late.
     * @param scenario the scenario
     * @param spec the contender
     * @param lateCalls how many calls after the first are late
     * @param lateBy how late they reach the buckets (the simulator's delay before it
     * admits them)
     * @return what it achieved
     * @throws InterruptedException if interrupted
     */
    public static ContenderResult run(LoadScenario scenario, ContenderSpec spec, int lateCalls, Duration lateBy)
            throws InterruptedException {
        try (LlmSimulator simulator = LlmSimulator.builder()
            .model(scenario.model(),
                    ModelLimits.of(scenario.requestsPerMinute(), scenario.inputTokensPerMinute(),
                            scenario.outputTokensPerMinute()))
            .latency(scenario.latency(), Duration.ZERO)
            .outputTokens(scenario.outputTokens())
            .bucketWindow(scenario.bucketWindow())
            .start(); Contender contender = spec.factory().create(simulator.baseUrl(), scenario)) {
            if (scenario.drain()) {
                drain(scenario, simulator, contender);
            }
            simulator.resetStats();
            if (lateCalls > 0) {
                Fault[] script = new Fault[lateCalls + 1];
                Arrays.fill(script, Fault.delay(lateBy));
                script[0] = Fault.ok();
                simulator.script(scenario.model(), script);
            }
            return offer(scenario, spec.name(), contender, simulator);
        }
    }

    /**
     * Empties the provider's input-token bucket (and llm-throttle's) with two large
     * calls, so that the run measures the refill and not the minute's worth of burst a
     * full bucket holds.
     */
    private static void drain(LoadScenario scenario, LlmSimulator simulator, Contender contender) {
        long tokens = scenario.inputTokensPerMinute() / 2 - 500;
        String body = MessagesBodies.singleTurn(scenario.model(), 10, "y".repeat((int) (4 * tokens)));
        RestClient plain = PlainRestClients.create(simulator.baseUrl());
        for (int i = 0; i < 2; i++) {
            if (!contender.drain(body)) {
                PlainRestClients.post(plain, body);
            }
        }
    }

    private static ContenderResult offer(LoadScenario scenario, String name, Contender contender,
            LlmSimulator simulator) throws InterruptedException {
        int calls = scenario.calls();
        ExecutorService pool = Executors.newCachedThreadPool();
        ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
        Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();
        CountDownLatch done = new CountDownLatch(calls);
        long intervalNanos = (long) (1e9 / scenario.callsPerSecond());
        Instant start = Instant.now();
        long startNanos = System.nanoTime();
        AtomicLong lastEnd = new AtomicLong(startNanos);
        try {
            for (int i = 0; i < calls; i++) {
                // the burst all at once, then one call every interval
                int burst = scenario.burst();
                long slot = (i < burst) ? 0 : i - burst + ((burst > 0) ? 1 : 0);
                long due = startNanos + slot * intervalNanos;
                TimeUnit.NANOSECONDS.sleep(Math.max(0, due - System.nanoTime()));
                String prompt = scenario.prompt(i);
                pool.execute(() -> {
                    try {
                        contender.call(prompt);
                        latencies.add(System.nanoTime() - due);
                    }
                    catch (Throwable ex) {
                        failures.computeIfAbsent(cause(ex), (key) -> new AtomicInteger()).incrementAndGet();
                    }
                    finally {
                        lastEnd.accumulateAndGet(System.nanoTime(), Math::max);
                        done.countDown();
                    }
                });
            }
            long remaining = startNanos + scenario.duration().toNanos() + scenario.deadline().toNanos()
                    - System.nanoTime();
            done.await(Math.max(remaining, 0), TimeUnit.NANOSECONDS);
        }
        finally {
            pool.shutdownNow();
        }
        String rateLimitedBy = contender.rateLimitedBy(startNanos);
        if (rateLimitedBy != null) {
            System.out.println("  429s by limit: " + rateLimitedBy);
        }
        Map<String, Integer> failed = new TreeMap<>();
        failures.forEach((cause, count) -> failed.put(cause, count.get()));
        int succeeded = latencies.size();
        int accounted = succeeded + failed.values().stream().mapToInt(Integer::intValue).sum();
        if (accounted < calls) {
            failed.put("unfinished", calls - accounted);
        }
        SimulatorStats stats = simulator.stats(scenario.model());
        return new ContenderResult(name, calls, succeeded, failed, stats.attempts(), stats.rateLimited(),
                latencies.stream().mapToLong(Long::longValue).toArray(),
                inputTokensPerSecond(stats, start, scenario.duration()), scenario.inputTokensPerMinute() / 60.0,
                Duration.ofNanos(lastEnd.get() - startNanos));
    }

    /**
     * Input tokens the provider admitted per second over the whole seconds of the offered
     * load, leaving out the partial second the load starts in and the next one (which can
     * spend what the drain left).
     */
    private static double inputTokensPerSecond(SimulatorStats stats, Instant start, Duration duration) {
        Instant from = start.truncatedTo(ChronoUnit.SECONDS).plusSeconds(2);
        Instant to = start.plus(duration).truncatedTo(ChronoUnit.SECONDS);
        long seconds = Duration.between(from, to).toSeconds();
        if (seconds <= 0) {
            return 0;
        }
        return stats.inputTokensBetween(from, to) / (double) seconds;
    }

    static String cause(Throwable ex) {
        String name = ex.getClass().getSimpleName();
        if (ex.getClass().getEnclosingClass() != null) {
            name = ex.getClass().getEnclosingClass().getSimpleName() + "." + name;
        }
        return name;
    }

    /**
     * The results as a Markdown table.
     * @param results the results
     * @return the table
     */
    public static String table(List<ContenderResult> results) {
        StringBuilder table = new StringBuilder();
        table.append("| Contender | Calls | OK | Failed | Success | Attempts | 429s | p50 | p95 | p99 | "
                + "Input tok/s (of limit) | Wall | Failures |\n");
        table.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        results.forEach((result) -> table.append(row(result)).append('\n'));
        return table.toString();
    }

    private static String row(ContenderResult r) {
        String failures = r.failures().isEmpty() ? ""
                : r.failures()
                    .entrySet()
                    .stream()
                    .map((entry) -> entry.getKey() + " " + entry.getValue())
                    .collect(Collectors.joining(", "));
        return String.format(Locale.ROOT,
                "| %s | %d | %d | %d | %.0f %% | %d | %d | %s | %s | %s | %,.0f (%.0f %%) | %s | %s |", r.name(),
                r.calls(), r.succeeded(), r.failed(), 100 * r.successRate(), r.attempts(), r.rateLimited(),
                seconds(r.latency(50)), seconds(r.latency(95)), seconds(r.latency(99)), r.inputTokensPerSecond(),
                100 * r.utilisation(), seconds(r.wall()), failures);
    }

    static String seconds(Duration duration) {
        return String.format(Locale.ROOT, "%.2f s", duration.toNanos() / 1e9);
    }

}
