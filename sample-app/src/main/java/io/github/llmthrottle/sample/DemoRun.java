package io.github.llmthrottle.sample;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.sample.AssistantService.AnalysisJob;
import io.github.llmthrottle.sample.AssistantService.Document;
import io.github.llmthrottle.sample.AssistantService.Question;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationContext;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * The demo: once the application is ready, a burst of mixed calls far above the simulated
 * limits (realtime questions, normal summaries and replies, batch analyses and reports,
 * classifications; two tenants; the replies and reports through Spring AI's
 * {@code ChatClient}, sync and streamed), with a progress bar, then a summary table. The
 * application keeps serving afterwards unless {@code demo.exit-when-done=true}.
 */
@Component
public class DemoRun implements DisposableBean {

    private static final Log logger = LogFactory.getLog(DemoRun.class);

    private static final String[] TENANTS = { "acme", "globex" };

    private static final Duration OUTAGE_AFTER = Duration.ofSeconds(6);

    private static final Duration RATE_LIMIT_AFTER = Duration.ofSeconds(3);

    private static final Duration OUTAGE = Duration.ofSeconds(12);

    private final AssistantService assistant;

    private final LlmThrottleRegistry registry;

    private final QueueWaitRecorder queueWaits;

    private final ApplicationContext context;

    private final Environment environment;

    private final ObjectProvider<LlmSimulator> simulator;

    private final boolean enabled;

    private final int calls;

    private final int threads;

    private final boolean exitWhenDone;

    private final PrintStream out = System.out;

    private final Map<Priority, ConcurrentLinkedQueue<Outcome>> outcomes = new EnumMap<>(Priority.class);

    private final AtomicInteger finished = new AtomicInteger();

    private final AtomicInteger chatClientCalls = new AtomicInteger();

    private final AtomicInteger chatClientStreams = new AtomicInteger();

    private final CompletableFuture<String> summary = new CompletableFuture<>();

    private volatile boolean running;

    private @Nullable ExecutorService workers;

    private @Nullable ScheduledExecutorService ticker;

    DemoRun(AssistantService assistant, LlmThrottleRegistry registry, QueueWaitRecorder queueWaits,
            ApplicationContext context, Environment environment, ObjectProvider<LlmSimulator> simulator,
            @Value("${demo.enabled:false}") boolean enabled, @Value("${demo.calls:300}") int calls,
            @Value("${demo.threads:48}") int threads, @Value("${demo.exit-when-done:false}") boolean exitWhenDone) {
        this.assistant = assistant;
        this.registry = registry;
        this.queueWaits = queueWaits;
        this.context = context;
        this.environment = environment;
        this.simulator = simulator;
        this.enabled = enabled;
        this.calls = calls;
        this.threads = threads;
        this.exitWhenDone = exitWhenDone;
        for (Priority priority : Priority.values()) {
            this.outcomes.put(priority, new ConcurrentLinkedQueue<>());
        }
    }

    @EventListener(ApplicationReadyEvent.class)
    void start() {
        String port = this.environment.getProperty("local.server.port",
                this.environment.getProperty("server.port", "8080"));
        logger.info("Dashboard: http://localhost:" + port + "/  (endpoint: http://localhost:" + port
                + "/actuator/llmthrottle)");
        if (!this.enabled) {
            logger.info("Demo burst disabled (it runs only against the simulated provider)");
            this.summary.complete("");
            return;
        }
        Thread thread = new Thread(this::run, "demo-burst");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * The summary table, once the burst is over.
     * @return the table
     */
    public CompletableFuture<String> summary() {
        return this.summary;
    }

    /**
     * Where the burst is.
     * @return the progress
     */
    public Progress progress() {
        int ok = 0;
        int degraded = 0;
        int failed = 0;
        for (ConcurrentLinkedQueue<Outcome> queue : this.outcomes.values()) {
            for (Outcome outcome : queue) {
                if (outcome.failure() != null) {
                    failed++;
                }
                else if (outcome.answer() != null && outcome.answer().degraded()) {
                    degraded++;
                }
                else {
                    ok++;
                }
            }
        }
        return new Progress(this.enabled, this.running, this.calls, this.finished.get(), ok, degraded, failed);
    }

    private void run() {
        this.running = true;
        this.queueWaits.clear();
        long start = System.nanoTime();
        this.out.printf("%nllm-throttle demo: %d calls against the simulated provider (%d caller threads)%n",
                this.calls, this.threads);
        ExecutorService workers = Executors.newFixedThreadPool(this.threads);
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
        this.workers = workers;
        this.ticker = ticker;
        try {
            ticker.scheduleAtFixedRate(this::printProgress, 0, 250, TimeUnit.MILLISECONDS);
            LlmSimulator provider = this.simulator.getIfAvailable();
            if (provider != null) {
                // a 429 on Sonnet a few seconds in, although the calls keep to the limits
                // (another application spending the same organisation's limits): the
                // model pauses for the server's time, and the call is retried after it
                ticker.schedule(() -> {
                    this.out.printf("%n(simulated provider: another application spent the organisation's %s "
                            + "requests; the next call gets a 429 asking for 2 s)%n", SimulatedProvider.SONNET);
                    provider.script(SimulatedProvider.SONNET, Fault.status(429).retryAfter("2"));
                }, RATE_LIMIT_AFTER.toMillis(), TimeUnit.MILLISECONDS);
                // an Opus outage a few seconds in: its circuit opens, questions fall back
                // to Sonnet, and the circuit probes and closes again once the outage is
                // over
                ticker.schedule(() -> {
                    this.out.printf("%n(simulated provider: %s is overloaded for %d s)%n", SimulatedProvider.OPUS,
                            OUTAGE.toSeconds());
                    provider.outage(SimulatedProvider.OPUS, OUTAGE);
                }, OUTAGE_AFTER.toMillis(), TimeUnit.MILLISECONDS);
            }
            List<CompletableFuture<Void>> futures = new ArrayList<>();
            Random random = new Random(7);
            for (int i = 0; i < this.calls; i++) {
                futures.add(CompletableFuture.runAsync(task(i, random), workers));
            }
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();
            ticker.shutdownNow();
            printProgress();
            String table = summaryTable(Duration.ofNanos(System.nanoTime() - start));
            this.out.println();
            this.out.println(table);
            this.out.flush();
            this.summary.complete(table);
        }
        catch (RuntimeException ex) {
            logger.error("Demo burst failed", ex);
            this.summary.completeExceptionally(ex);
        }
        finally {
            this.running = false;
            ticker.shutdownNow();
            workers.shutdownNow();
        }
        if (this.exitWhenDone) {
            System.exit(SpringApplication.exit(this.context, () -> 0));
        }
    }

    private Runnable task(int index, Random random) {
        int kind = random.nextInt(10);
        String tenant = TENANTS[random.nextInt(TENANTS.length)];
        if (kind < 2) {
            String text = words(random, 40 + random.nextInt(80));
            return measured(Priority.REALTIME, () -> this.assistant.answer(new Question(text)));
        }
        if (kind < 6) {
            String text = words(random, 150 + random.nextInt(200));
            Document document = new Document(tenant, text);
            // every other one through Spring AI's ChatClient (call())
            if (index % 2 == 0) {
                return measured(Priority.NORMAL, () -> this.assistant.summarize(document));
            }
            this.chatClientCalls.incrementAndGet();
            return measured(Priority.NORMAL, () -> this.assistant.draftReply(document));
        }
        if (kind < 9) {
            String text = words(random, 250 + random.nextInt(250));
            AnalysisJob job = new AnalysisJob(tenant, text);
            // one in three through Spring AI's ChatClient, streamed (stream())
            if (index % 3 != 0) {
                return measured(Priority.BATCH, () -> this.assistant.analyze(job));
            }
            this.chatClientStreams.incrementAndGet();
            return measured(Priority.BATCH, () -> this.assistant.streamReport(job));
        }
        String text = words(random, 30 + random.nextInt(40));
        return measured(Priority.NORMAL, () -> this.assistant.classify(text));
    }

    private Runnable measured(Priority priority, Supplier<Answer> call) {
        return () -> {
            long began = System.nanoTime();
            Answer answer = null;
            Throwable failure = null;
            try {
                answer = call.get();
            }
            catch (RuntimeException ex) {
                failure = ex;
            }
            this.outcomes.get(priority).add(new Outcome(answer, failure, Duration.ofNanos(System.nanoTime() - began)));
            this.finished.incrementAndGet();
        };
    }

    private void printProgress() {
        Progress progress = progress();
        int width = 40;
        int filled = (progress.total() > 0) ? width * progress.finished() / progress.total() : width;
        this.out.printf("\r[%s%s] %3d%%  %d/%d  ok %d  degraded %d  failed %d   ", "#".repeat(filled),
                ".".repeat(width - filled), (progress.total() > 0) ? 100 * progress.finished() / progress.total() : 100,
                progress.finished(), progress.total(), progress.succeeded(), progress.degraded(), progress.failed());
        this.out.flush();
    }

    private String summaryTable(Duration elapsed) {
        StringBuilder table = new StringBuilder();
        table.append(String.format(Locale.ROOT, "==== llm-throttle demo: Summary (%d calls in %.1f s) ====%n",
                this.calls, elapsed.toMillis() / 1000.0));
        table.append(String.format(Locale.ROOT, "%-9s %6s %6s %9s %7s %10s  %-22s %-22s%n", "priority", "calls", "ok",
                "degraded", "failed", "fallbacks", "queue wait p50/95/99", "latency p50/95/99"));
        for (Priority priority : Priority.values()) {
            List<Outcome> list = new ArrayList<>(this.outcomes.get(priority));
            long ok = list.stream().filter((o) -> o.failure() == null && !o.answer().degraded()).count();
            long degraded = list.stream().filter((o) -> o.failure() == null && o.answer().degraded()).count();
            long failed = list.stream().filter((o) -> o.failure() != null).count();
            long fallbacks = list.stream()
                .filter((o) -> o.answer() != null && priority == Priority.REALTIME
                        && !SimulatedProvider.OPUS.equals(o.answer().model()) && !o.answer().degraded())
                .count();
            long[] latencies = list.stream().mapToLong((o) -> o.latency().toMillis()).sorted().toArray();
            table.append(String.format(Locale.ROOT, "%-9s %6d %6d %9d %7d %10d  %-22s %-22s%n", priority, list.size(),
                    ok, degraded, failed, fallbacks, percentiles(this.queueWaits.waitsMillis(priority)),
                    percentiles(latencies)));
        }
        table.append(String.format(Locale.ROOT,
                "(of which through Spring AI's ChatClient: %d call() at NORMAL, %d stream() at BATCH)%n",
                this.chatClientCalls.get(), this.chatClientStreams.get()));
        table.append(String.format(Locale.ROOT, "%n%-10s %-18s %7s %9s %6s %6s %9s %12s %12s%n", "client", "model",
                "calls", "attempts", "429s", "529s", "retries", "input tok", "output tok"));
        for (ThrottledClient client : this.registry.getClients().values()) {
            client.getModels().forEach((name, model) -> {
                ModelTotals.Snapshot totals = model.getTotals().snapshot();
                table.append(String.format(Locale.ROOT, "%-10s %-18s %7d %9d %6d %6d %9d %12d %12d%n", client.getName(),
                        name, totals.calls(), totals.attempts(), totals.rateLimited(), totals.overloaded(),
                        totals.retries(), totals.inputTokens(), totals.outputTokens()));
            });
        }
        table.append(String.format(Locale.ROOT, "%ntokens admitted against the input limit over %.1f s:%n",
                elapsed.toMillis() / 1000.0));
        for (ThrottledClient client : this.registry.getClients().values()) {
            client.getModels().forEach((name, model) -> {
                Long itpm = client.getSettings().limitsOf(name).inputTokensPerMinute();
                if (itpm != null) {
                    long used = model.getTotals().snapshot().inputTokens();
                    // a bucket holds one minute's worth, so the most admissible is a full
                    // bucket plus the refill
                    double admissible = itpm + itpm * elapsed.toMillis() / 60_000.0;
                    table.append(String.format(Locale.ROOT, "  %-18s %8d of at most %8.0f (%5.1f%%)%n", name, used,
                            admissible, 100 * used / admissible));
                }
            });
        }
        return table.toString();
    }

    private static String percentiles(long[] sortedMillis) {
        if (sortedMillis.length == 0) {
            return "-";
        }
        return String.format(Locale.ROOT, "%s/%s/%s", millis(percentile(sortedMillis, 0.50)),
                millis(percentile(sortedMillis, 0.95)), millis(percentile(sortedMillis, 0.99)));
    }

    private static long percentile(long[] sorted, double p) {
        int index = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static String millis(long millis) {
        return (millis >= 1000) ? String.format(Locale.ROOT, "%.1fs", millis / 1000.0) : millis + "ms";
    }

    private static String words(Random random, int count) {
        String[] vocabulary = { "rate", "limit", "token", "bucket", "model", "queue", "tenant", "priority", "retry",
                "latency", "provider", "answer", "summary", "analysis", "context", "budget" };
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < count; i++) {
            text.append(vocabulary[random.nextInt(vocabulary.length)]).append(' ');
        }
        return text.toString();
    }

    @Override
    public void destroy() {
        ExecutorService workers = this.workers;
        if (workers != null) {
            workers.shutdownNow();
        }
        ScheduledExecutorService ticker = this.ticker;
        if (ticker != null) {
            ticker.shutdownNow();
        }
    }

    private record Outcome(@Nullable Answer answer, @Nullable Throwable failure, Duration latency) {
    }

    /**
     * Where the demo burst is.
     *
     * @param enabled whether the demo runs at all
     * @param running whether the burst is running now
     * @param total calls in the burst
     * @param finished calls that ended
     * @param succeeded calls answered by a model
     * @param degraded calls answered by the fallback method
     * @param failed calls that failed
     */
    public record Progress(boolean enabled, boolean running, int total, int finished, int succeeded, int degraded,
            int failed) {
    }

}
