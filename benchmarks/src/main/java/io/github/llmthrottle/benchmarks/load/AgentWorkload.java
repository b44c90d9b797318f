package io.github.llmthrottle.benchmarks.load;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
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

import io.github.llmthrottle.benchmarks.ThrottleApplication;
import io.github.llmthrottle.benchmarks.load.AgentScenario.AgentModel;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.test.SimulatorStats;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.client.RestClient;

/**
 * Offers an {@link AgentScenario} to llm-throttle (its {@code anthropicRestClient} with
 * both models' limits configured, defaults otherwise) against the testkit simulator, with
 * and without prompt caching, and prints what the provider admitted each second against
 * each model's binding limit, the 429s, the failed calls and the latencies. <pre>
 * java -cp benchmarks/target/benchmarks.jar io.github.llmthrottle.benchmarks.load.AgentWorkload \
 *     [--mode both|cached|uncached] [--seconds 20] [--overload 1.3]
 * </pre>
 */
public final class AgentWorkload {

    private AgentWorkload() {
    }

    public static void main(String[] args) throws Exception {
        Duration duration = null;
        Double overload = null;
        String mode = "both";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--mode" -> mode = args[++i];
                case "--seconds" -> duration = Duration.ofSeconds(Long.parseLong(args[++i]));
                case "--overload" -> overload = Double.parseDouble(args[++i]);
                default -> throw new IllegalArgumentException(
                        "Unknown argument " + args[i] + "; use --mode both|cached|uncached, --seconds N, --overload X");
            }
        }
        List<Boolean> modes = switch (mode) {
            case "both" -> List.of(true, false);
            case "cached" -> List.of(true);
            case "uncached" -> List.of(false);
            default -> throw new IllegalArgumentException("Unknown mode " + mode + "; use both, cached or uncached");
        };
        List<Run> runs = new ArrayList<>();
        for (boolean cached : modes) {
            AgentScenario scenario = AgentScenario.of(cached);
            if (duration != null) {
                scenario = scenario.withDuration(duration);
            }
            if (overload != null) {
                scenario = scenario.withOverload(overload);
            }
            System.out.println(scenario.describe());
            Run run = run(scenario);
            runs.add(run);
            System.out.println(summary(List.of(run)));
        }
        System.out.printf(Locale.ROOT, "JDK %s, %d CPUs.%n%n", Runtime.version(),
                Runtime.getRuntime().availableProcessors());
        System.out.println(summary(runs));
        System.out.println(perSecond(runs));
        System.exit(0);
    }

    /**
     * What one model achieved in one run.
     *
     * @param model the model
     * @param cached whether the prompts were cached
     * @param binding the calls a real second its binding limit admits
     * @param bindingLimit which limit binds
     * @param calls calls offered
     * @param succeeded calls that returned a 200
     * @param failures failed calls by cause
     * @param attempts requests the provider received
     * @param rateLimited 429s the provider sent
     * @param latencies sorted latencies of the successful calls from the moment they were
     * offered, in nanoseconds
     * @param admitted requests the provider admitted in each real second from the start
     * @param cacheRead input tokens read from the cache
     * @param cacheWritten input tokens written to the cache
     * @param wall from the first call offered to the last call ended
     */
    public record ModelResult(String model, boolean cached, double binding, String bindingLimit, int calls,
            int succeeded, Map<String, Integer> failures, long attempts, long rateLimited, long[] latencies,
            long[] admitted, long cacheRead, long cacheWritten, Duration wall) {

        /**
         * Copies the arrays and map.
         * @param model the model
         * @param cached whether cached
         * @param binding binding calls a real second
         * @param bindingLimit the binding limit
         * @param calls calls offered
         * @param succeeded calls succeeded
         * @param failures failures by cause
         * @param attempts attempts
         * @param rateLimited 429s
         * @param latencies latencies
         * @param admitted admissions per second
         * @param cacheRead cache reads
         * @param cacheWritten cache writes
         * @param wall wall time
         */
        public ModelResult {
            latencies = latencies.clone();
            Arrays.sort(latencies);
            admitted = admitted.clone();
            failures = Map.copyOf(failures);
        }

        /**
         * A percentile of the latency of the successful calls (nearest rank).
         * @param percent between 0 and 100
         * @return the latency, zero if none succeeded
         */
        public Duration latency(double percent) {
            return ContenderResult.percentile(this.latencies, percent);
        }

        /**
         * Calls that did not succeed.
         * @return failed calls
         */
        public int failed() {
            return this.calls - this.succeeded;
        }

        /**
         * Admissions in a real second against the binding limit.
         * @param second the second from the start
         * @return the share, 1.0 being the limit
         */
        public double share(int second) {
            return (second < this.admitted.length) ? this.admitted[second] / this.binding : 0;
        }

    }

    /**
     * One run of a scenario.
     *
     * @param scenario the scenario
     * @param models the result of each model, in the scenario's order
     */
    public record Run(AgentScenario scenario, List<ModelResult> models) {

        /**
         * Copies the results.
         * @param scenario the scenario
         * @param models the results
         */
        public Run {
            models = List.copyOf(models);
        }

    }

    /**
     * Runs a scenario against a fresh simulator and a fresh llm-throttle application.
     * @param scenario the scenario
     * @return what each model achieved
     * @throws InterruptedException if interrupted
     */
    public static Run run(AgentScenario scenario) throws InterruptedException {
        LlmSimulator.Builder builder = LlmSimulator.builder()
            .latency(scenario.real(scenario.answer()), Duration.ZERO)
            .outputTokens(scenario.outputTokens())
            .bucketWindow(scenario.real(scenario.bucketWindow()))
            .threads(400);
        scenario.models().forEach((model) -> builder.model(model.name(), scenario.realLimits(model)));
        try (LlmSimulator simulator = builder.start();
                ConfigurableApplicationContext context = start(scenario, simulator.baseUrl())) {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            return offer(scenario, client, simulator);
        }
    }

    private static ConfigurableApplicationContext start(AgentScenario scenario, String baseUrl) {
        List<String> extra = new ArrayList<>();
        for (AgentModel model : scenario.models().subList(1, scenario.models().size())) {
            limits(scenario.realLimits(model)).forEach((name, value) -> extra
                .add("llm.throttle.clients.anthropic.models." + model.name() + "." + name + "=" + value));
        }
        AgentModel first = scenario.models().get(0);
        return ThrottleApplication.start(baseUrl, first.name(), limits(scenario.realLimits(first)),
                extra.toArray(String[]::new));
    }

    private static Map<String, Object> limits(ModelLimits limits) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("requests-per-minute", limits.requestsPerMinute());
        properties.put("input-tokens-per-minute", limits.inputTokensPerMinute());
        properties.put("output-tokens-per-minute", limits.outputTokensPerMinute());
        return properties;
    }

    private static Run offer(AgentScenario scenario, RestClient client, LlmSimulator simulator)
            throws InterruptedException {
        List<AgentModel> models = scenario.models();
        int total = models.stream().mapToInt(scenario::calls).sum();
        ExecutorService pool = Executors.newCachedThreadPool();
        CountDownLatch done = new CountDownLatch(total);
        List<ConcurrentLinkedQueue<Long>> latencies = new ArrayList<>();
        List<Map<String, AtomicInteger>> failures = new ArrayList<>();
        List<AtomicLong> lastEnds = new ArrayList<>();
        // start on a whole second, so that the provider's seconds are the run's
        long toWholeSecond = 1000 - System.currentTimeMillis() % 1000;
        Thread.sleep(toWholeSecond + 5);
        Instant start = Instant.now();
        long startNanos = System.nanoTime();
        List<Thread> offering = new ArrayList<>();
        for (AgentModel model : models) {
            ConcurrentLinkedQueue<Long> modelLatencies = new ConcurrentLinkedQueue<>();
            Map<String, AtomicInteger> modelFailures = new ConcurrentHashMap<>();
            AtomicLong lastEnd = new AtomicLong(startNanos);
            latencies.add(modelLatencies);
            failures.add(modelFailures);
            lastEnds.add(lastEnd);
            long interval = (long) (1e9 / scenario.offeredPerSecond(model));
            Thread thread = new Thread(() -> {
                for (int i = 0; i < scenario.calls(model); i++) {
                    long due = startNanos + i * interval;
                    String body = scenario.body(model, i);
                    try {
                        TimeUnit.NANOSECONDS.sleep(Math.max(0, due - System.nanoTime()));
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    pool.execute(() -> {
                        try {
                            PlainRestClients.post(client, body);
                            modelLatencies.add(System.nanoTime() - due);
                        }
                        catch (Throwable ex) {
                            modelFailures.computeIfAbsent(LoadComparison.cause(ex), (key) -> new AtomicInteger())
                                .incrementAndGet();
                        }
                        finally {
                            lastEnd.accumulateAndGet(System.nanoTime(), Math::max);
                            done.countDown();
                        }
                    });
                }
            }, "offer-" + model.name());
            thread.start();
            offering.add(thread);
        }
        try {
            long deadline = startNanos + scenario.duration().toNanos() + scenario.deadline().toNanos();
            done.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        finally {
            offering.forEach(Thread::interrupt);
            pool.shutdownNow();
        }
        List<ModelResult> results = new ArrayList<>();
        for (int m = 0; m < models.size(); m++) {
            AgentModel model = models.get(m);
            Map<String, Integer> failed = new TreeMap<>();
            failures.get(m).forEach((cause, count) -> failed.put(cause, count.get()));
            long[] modelLatencies = latencies.get(m).stream().mapToLong(Long::longValue).toArray();
            int accounted = modelLatencies.length + failed.values().stream().mapToInt(Integer::intValue).sum();
            if (accounted < scenario.calls(model)) {
                failed.put("unfinished", scenario.calls(model) - accounted);
            }
            SimulatorStats stats = simulator.stats(model.name());
            results.add(new ModelResult(model.name(), scenario.cached(), scenario.bindingPerSecond(model),
                    scenario.bindingLimit(model), scenario.calls(model), modelLatencies.length, failed,
                    stats.attempts(), stats.rateLimited(), modelLatencies, perSecond(stats, start),
                    stats.cacheReadInputTokens(), stats.cacheCreationInputTokens(),
                    Duration.ofNanos(lastEnds.get(m).get() - startNanos)));
        }
        return new Run(scenario, results);
    }

    /** The admissions of each real second from the start. */
    private static long[] perSecond(SimulatorStats stats, Instant start) {
        long first = start.getEpochSecond();
        long last = stats.admittedPerSecond().isEmpty() ? first : stats.admittedPerSecond().lastKey().getEpochSecond();
        long[] admitted = new long[(int) Math.max(0, last - first + 1)];
        stats.admittedPerSecond().forEach((second, count) -> {
            int index = (int) (second.getEpochSecond() - first);
            if (index >= 0 && index < admitted.length) {
                admitted[index] += count;
            }
        });
        return admitted;
    }

    /**
     * One row per run and model: calls, failures, 429s, latencies in real and simulated
     * time, admissions against the binding limit in the first five seconds and over the
     * offered load, cache reads and writes.
     * @param runs the runs
     * @return a Markdown table
     */
    public static String summary(List<Run> runs) {
        StringBuilder table = new StringBuilder();
        table.append("| Model | Prompts | Binding (calls/s) | Calls | OK | Failed | Attempts | 429s | p50 real "
                + "(simulated) | p95 real | Admitted s 1-5, % of binding | Mean while offered | Wall | Cache read / "
                + "written tokens | Failures |\n");
        table.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|\n");
        for (Run run : runs) {
            int offered = (int) run.scenario().duration().toSeconds();
            for (ModelResult r : run.models()) {
                StringBuilder first = new StringBuilder();
                for (int s = 0; s < 5; s++) {
                    first.append((s > 0) ? ", " : "").append(String.format(Locale.ROOT, "%.0f", 100 * r.share(s)));
                }
                double mean = 0;
                for (int s = 0; s < offered; s++) {
                    mean += r.share(s) / offered;
                }
                String failed = r.failures().isEmpty() ? ""
                        : r.failures().toString().replaceAll("[{}]", "").replace('=', ' ');
                table.append(String.format(Locale.ROOT,
                        "| %s | %s | %.1f (%s) | %d | %d | %d | %d | %d (%.2f %%) | %s (%s) | %s | %s | %.0f %% | %s | "
                                + "%,d / %,d | %s |%n",
                        r.model(), r.cached() ? "cached" : "not cached", r.binding(), r.bindingLimit(), r.calls(),
                        r.succeeded(), r.failed(), r.attempts(), r.rateLimited(),
                        (r.attempts() > 0) ? 100.0 * r.rateLimited() / r.attempts() : 0,
                        LoadComparison.seconds(r.latency(50)),
                        LoadComparison.seconds(r.latency(50).multipliedBy(run.scenario().compression())),
                        LoadComparison.seconds(r.latency(95)), first, 100 * mean, LoadComparison.seconds(r.wall()),
                        r.cacheRead(), r.cacheWritten(), failed));
            }
        }
        return table.toString();
    }

    /**
     * The admissions of every real second, per run and model, as a count and as a share
     * of the binding limit, side by side.
     * @param runs the runs
     * @return a Markdown table
     */
    public static String perSecond(List<Run> runs) {
        StringBuilder table = new StringBuilder("| Second (simulated) |");
        StringBuilder rule = new StringBuilder("|---:|");
        int seconds = 0;
        for (Run run : runs) {
            for (ModelResult r : run.models()) {
                table.append(String.format(Locale.ROOT, " %s %s (of %.1f) |", r.model(),
                        r.cached() ? "cached" : "not cached", r.binding()));
                rule.append("---:|");
                seconds = Math.max(seconds, r.admitted().length);
            }
        }
        table.append('\n').append(rule).append('\n');
        for (int s = 0; s < seconds; s++) {
            int compression = runs.get(0).scenario().compression();
            table.append(String.format(Locale.ROOT, "| %d (%d-%d) |", s + 1, s * compression, (s + 1) * compression));
            for (Run run : runs) {
                for (ModelResult r : run.models()) {
                    long admitted = (s < r.admitted().length) ? r.admitted()[s] : 0;
                    table.append(String.format(Locale.ROOT, " %d (%.0f %%) |", admitted, 100 * r.share(s)));
                }
            }
            table.append('\n');
        }
        return table.toString();
    }

}
