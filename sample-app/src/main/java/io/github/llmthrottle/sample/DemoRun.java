package io.github.llmthrottle.sample;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
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
import org.springframework.beans.factory.annotation.Qualifier;
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
 * {@code ChatClient}, sync and streamed), with a progress bar, then a summary table. On
 * the way, the simulated providers misbehave: Sonnet's {@code us} deployment answers a
 * 429 and its {@code eu} deployment is overloaded for a while (Sonnet's calls go on on
 * the other one), and Opus is out (questions go to the OpenAI-compatible provider,
 * another client). The application keeps serving afterwards unless
 * {@code demo.exit-when-done=true}.
 */
@Component
public class DemoRun implements DisposableBean {

    private static final Log logger = LogFactory.getLog(DemoRun.class);

    private static final String[] TENANTS = { "acme", "globex" };

    private static final Duration OUTAGE_AFTER = Duration.ofSeconds(6);

    private static final Duration RATE_LIMIT_AFTER = Duration.ofSeconds(3);

    private static final Duration OUTAGE = Duration.ofSeconds(12);

    private static final Duration EU_OVERLOADED_AFTER = Duration.ofSeconds(4);

    private static final int EU_OVERLOADED_CALLS = 4;

    private static final String SONNET_US = SimulatedProvider.SONNET + "@us";

    private static final String SONNET_EU = SimulatedProvider.SONNET + "@eu";

    private final AssistantService assistant;

    private final LlmThrottleRegistry registry;

    private final QueueWaitRecorder queueWaits;

    private final ApplicationContext context;

    private final Environment environment;

    private final ObjectProvider<LlmSimulator> simulator;

    private final ObjectProvider<LlmSimulator> sonnetEuSimulator;

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
            @Qualifier("sonnetEuSimulator") ObjectProvider<LlmSimulator> sonnetEuSimulator,
            @Value("${demo.enabled:false}") boolean enabled, @Value("${demo.calls:300}") int calls,
            @Value("${demo.threads:48}") int threads, @Value("${demo.exit-when-done:false}") boolean exitWhenDone) {
        this.assistant = assistant;
        this.registry = registry;
        this.queueWaits = queueWaits;
        this.context = context;
        this.environment = environment;
        this.simulator = simulator;
        this.sonnetEuSimulator = sonnetEuSimulator;
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
                // a 429 on Sonnet's us deployment a few seconds in, although the calls
                // keep
                // to the limits (another application spending the same organisation's
                // limits): that deployment pauses for the server's time, and the call
                // goes
                // to eu at once
                ticker.schedule(() -> {
                    this.out.printf("%n(simulated provider: another application spent the organisation's %s "
                            + "requests; the next call gets a 429 asking for 2 s)%n", SONNET_US);
                    provider.script(SimulatedProvider.SONNET, Fault.status(429).retryAfter("2"));
                }, RATE_LIMIT_AFTER.toMillis(), TimeUnit.MILLISECONDS);
                // an Opus outage a few seconds in: its circuit opens, questions fall back
                // to the OpenAI-compatible provider (another client), and the circuit
                // probes and closes again once the outage is over
                ticker.schedule(() -> {
                    this.out.printf("%n(simulated provider: %s is overloaded for %d s; questions go to openai:%s)%n",
                            SimulatedProvider.OPUS, OUTAGE.toSeconds(), SimulatedProvider.GPT);
                    provider.outage(SimulatedProvider.OPUS, OUTAGE);
                }, OUTAGE_AFTER.toMillis(), TimeUnit.MILLISECONDS);
            }
            LlmSimulator sonnetEu = this.sonnetEuSimulator.getIfAvailable();
            if (sonnetEu != null) {
                // Sonnet's eu deployment overloaded for a moment: each of its 529s hands
                // the
                // attempt to the us deployment at once, without back-off, and eu takes
                // calls again as soon as it answers (too few failures to open its
                // circuit)
                ticker.schedule(() -> {
                    this.out.printf("%n(simulated provider: %s is overloaded for its next %d calls; each goes to %s)%n",
                            SONNET_EU, EU_OVERLOADED_CALLS, SONNET_US);
                    sonnetEu.script(SimulatedProvider.SONNET,
                            Collections.nCopies(EU_OVERLOADED_CALLS, Fault.overloaded()).toArray(Fault[]::new));
                }, EU_OVERLOADED_AFTER.toMillis(), TimeUnit.MILLISECONDS);
            }
            List<CompletableFuture<Void>> futures = new ArrayList<>();
            Random random = new Random(7);
            for (int i = 0; i < this.calls; i++) {
                futures.add(CompletableFuture.runAsync(task(i, random), workers));
            }
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();
            ticker.shutdownNow();
            printProgress();
            String table = new DemoSummary(this.registry, this.queueWaits).table(this.calls,
                    Duration.ofNanos(System.nanoTime() - start), this.outcomes, this.chatClientCalls.get(),
                    this.chatClientStreams.get());
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

    /**
     * How one call of the burst ended.
     *
     * @param answer its answer, or {@code null} when it failed
     * @param failure why it failed, or {@code null}
     * @param latency how long it took, admission and retries included
     */
    record Outcome(@Nullable Answer answer, @Nullable Throwable failure, Duration latency) {
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
