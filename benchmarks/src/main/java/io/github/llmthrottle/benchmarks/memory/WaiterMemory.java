package io.github.llmthrottle.benchmarks.memory;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.ObjectName;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.benchmarks.MessagesBodies;
import io.github.llmthrottle.benchmarks.ThrottleApplication;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.LimiterOptions;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.time.TimeSource;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.client.RestClient;

/**
 * How much heap llm-throttle holds: per call waiting in a model's admission queue, and
 * for an idle configured client. Used heap is read after full collections; each figure is
 * the difference of two states of the same JVM, divided by the number of waiters or
 * limiters.
 * <ul>
 * <li><b>Idle client</b>: a Boot context with Boot's HTTP client, RestClient and
 * llm-throttle auto-configuration and no llm-throttle client, against the same with one
 * client and three configured models (whose limiters are created at start-up); a first
 * context is started and kept open before measuring, so that class loading and static
 * caches are not counted. Also one {@link ModelLimiter} with three limits, measured over
 * 1,000 of them.</li>
 * <li><b>Waiters in a {@link ModelLimiter}</b>: a limiter whose only request a minute is
 * taken (so it admits nothing for a minute; max-wait 10 min, queue capacity N). N threads
 * are started and park on a latch: that state minus the state before is the caller
 * threads' own heap (their {@code Thread} objects; the stacks are native memory, not
 * heap). Then they call {@code acquire} and wait in the queue: that state minus the
 * parked one is what the library holds per waiting call (its {@link AdmissionRequest},
 * queue entry, condition and wait node).</li>
 * <li><b>Waiting calls through the {@code RestClient}</b>: the same with the
 * auto-configured {@code anthropicRestClient}, each caller posting a 2 KB Messages body
 * that it built before the latch (the body is the caller's, in the baseline): the
 * difference is everything a blocked call holds in Spring's request and llm-throttle's
 * interceptor and queue.</li>
 * </ul>
 * With {@code -XX:NativeMemoryTracking=summary} it also reports the committed native
 * memory of the threads (mostly stacks), which belongs to the caller. A class histogram
 * of the difference shows what a waiter is made of. <pre>
 * java -XX:NativeMemoryTracking=summary -cp benchmarks/target/benchmarks.jar \
 *     io.github.llmthrottle.benchmarks.memory.WaiterMemory [--waiters 1000,10000]
 * </pre>
 */
public final class WaiterMemory {

    private static final String MODEL = "claude-sonnet-4-5";

    private static final Duration MAX_WAIT = Duration.ofMinutes(10);

    private static final Pattern HISTOGRAM_LINE = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");

    private static final Pattern NMT_THREAD = Pattern.compile("Thread \\(reserved=(\\d+)KB, committed=(\\d+)KB\\)");

    private WaiterMemory() {
    }

    public static void main(String[] args) throws Exception {
        int[] counts = { 1_000, 10_000 };
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--waiters")) {
                counts = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
            }
            else {
                throw new IllegalArgumentException("Unknown argument " + args[i] + "; use --waiters 1000,10000");
            }
        }
        System.out.printf(Locale.ROOT, "JDK %s, %d CPUs, max heap %d MB, GC %s%n", Runtime.version(),
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20,
                ManagementFactory.getGarbageCollectorMXBeans().get(0).getName());
        idleClient();
        int max = Arrays.stream(counts).max().orElse(1000);
        limiterWaiters(100, null);
        for (int count : counts) {
            limiterWaiters(count, "ModelLimiter.acquire");
        }
        restClientWaiters(counts, max);
        System.exit(0);
    }

    private static void idleClient() throws Exception {
        long before = usedHeapAfterGc();
        ConfigurableApplicationContext warmBare = bareContext();
        long first = usedHeapAfterGc();
        // a first client context too, so that the classes only a client loads are not
        // counted below
        ConfigurableApplicationContext warmClient = clientContext();
        long firstClient = usedHeapAfterGc();
        ConfigurableApplicationContext bare = bareContext();
        long second = usedHeapAfterGc();
        Map<String, long[]> bareHistogram = histogram();
        long secondWithHistogram = usedHeapAfterGc();
        ConfigurableApplicationContext client = clientContext();
        LimiterRegistry registry = client.getBean(LimiterRegistry.class);
        int limiters = registry.states().values().stream().mapToInt(Map::size).sum();
        long third = usedHeapAfterGc();
        Map<String, long[]> clientHistogram = histogram();
        System.out.println();
        System.out.println("## Idle heap");
        System.out.printf(Locale.ROOT,
                "first Boot context (HTTP client, RestClient, llm-throttle; no client), " + "with class loading: %s%n",
                kb(first - before));
        System.out.printf(Locale.ROOT, "first context with one client and %d models, with class loading: %s%n",
                limiters, kb(firstClient - first));
        System.out.printf(Locale.ROOT, "another context without client: %s%n", kb(second - firstClient));
        System.out.printf(Locale.ROOT, "another context with one configured client and %d model limiters, minus the "
                + "context without client: %s%n", limiters, kb(third - secondWithHistogram));
        printDelta(bareHistogram, clientHistogram, 1, 1024);
        client.close();
        bare.close();
        warmClient.close();
        warmBare.close();

        LocalBucketStore store = new LocalBucketStore(TimeSource.system());
        List<ModelLimiter> many = new ArrayList<>();
        many.add(limiter("warm-up", 1000, store));
        long without = usedHeapAfterGc();
        for (int i = 0; i < 1000; i++) {
            many.add(limiter("model-" + i, 1000, store));
        }
        long with = usedHeapAfterGc();
        System.out.printf(Locale.ROOT, "one ModelLimiter (RPM, ITPM, OTPM; local buckets), over 1,000: %s%n",
                bytes((with - without) / 1000.0));
        reachabilityFence(many);
    }

    private static ConfigurableApplicationContext clientContext() {
        return ThrottleApplication.start("http://localhost:9", MODEL,
                Map.of("requests-per-minute", 4_000, "input-tokens-per-minute", 2_000_000, "output-tokens-per-minute",
                        400_000),
                "llm.throttle.clients.anthropic.models.claude-haiku-4-5.input-tokens-per-minute=4000000",
                "llm.throttle.clients.anthropic.models.claude-haiku-4-5.output-tokens-per-minute=800000",
                "llm.throttle.clients.anthropic.models.claude-opus-4-1.input-tokens-per-minute=2000000",
                "llm.throttle.clients.anthropic.models.claude-opus-4-1.output-tokens-per-minute=400000");
    }

    private static ConfigurableApplicationContext bareContext() {
        return new SpringApplicationBuilder(ThrottleApplication.class).web(WebApplicationType.NONE)
            .properties("spring.main.banner-mode=off", "spring.main.log-startup-info=false", "logging.level.root=warn")
            .run();
    }

    private static ModelLimiter limiter(String model, int queueCapacity, LocalBucketStore store) {
        return new ModelLimiter("anthropic", model, new ModelLimits(1L, 60_000L, 60_000L, null), queueCapacity,
                MAX_WAIT, (tenant) -> null, store, TimeSource.system(), LimiterOptions.WITHOUT_SLOW_START);
    }

    /**
     * N callers waiting in one limiter that admits nothing.
     * @param count N
     * @param label what to print, {@code null} for a silent warm-up round
     */
    private static void limiterWaiters(int count, @Nullable String label) throws Exception {
        ModelLimiter limiter = limiter(MODEL, count, new LocalBucketStore(TimeSource.system()));
        // the one request of the minute: nothing else is admitted until it refills
        Permit held = limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 100, 64, null));
        measure(count, label, () -> limiter.state().queued().total(), () -> {
            limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 512, 64, null));
        });
        held.release(Permit.Outcome.SUCCESS);
    }

    private static void restClientWaiters(int[] counts, int capacity) throws Exception {
        try (LlmSimulator simulator = LlmSimulator.builder()
            .model(MODEL, io.github.llmthrottle.test.ModelLimits.of(600, 60_000, 60_000))
            .latency(Duration.ofMillis(1), Duration.ZERO)
            .outputTokens(10)
            .start()) {
            ConfigurableApplicationContext context = ThrottleApplication.start(simulator.baseUrl(), MODEL,
                    Map.of("requests-per-minute", 1, "input-tokens-per-minute", 60_000, "output-tokens-per-minute",
                            60_000),
                    "llm.throttle.queue.capacity=" + capacity, "llm.throttle.queue.max-wait=" + MAX_WAIT);
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            ModelLimiter limiter = context.getBean(LimiterRegistry.class).limiter("anthropic", MODEL);
            // the one request of the minute, and a warm-up of the path
            MessagesBodies.post(client, new String(MessagesBodies.ofSize(MODEL, 64, 2048), StandardCharsets.UTF_8));
            IntSupplier queued = () -> limiter.state().queued().total();
            measureRestClient(client, queued, 100, null);
            for (int count : counts) {
                measureRestClient(client, queued, count, "anthropicRestClient call, 2 KB body");
            }
            context.close();
        }
    }

    private static void measureRestClient(RestClient client, IntSupplier queued, int count, @Nullable String label)
            throws Exception {
        String[] bodies = new String[count];
        for (int i = 0; i < count; i++) {
            bodies[i] = new String(MessagesBodies.ofSize(MODEL, 64, 2048), StandardCharsets.UTF_8);
        }
        int[] next = { 0 };
        measure(count, label, queued, () -> {
            String body;
            synchronized (next) {
                body = bodies[next[0]++];
            }
            MessagesBodies.post(client, body);
        });
        reachabilityFence(bodies);
    }

    /**
     * Starts N threads parked on a latch, measures, lets them run {@code call} (which
     * waits in the queue), measures again, then interrupts them.
     */
    private static void measure(int count, @Nullable String label, IntSupplier queued, Call call) throws Exception {
        long before = usedHeapAfterGc();
        long nativeBefore = threadNativeKb();
        CountDownLatch gate = new CountDownLatch(1);
        CountDownLatch parked = new CountDownLatch(count);
        CountDownLatch ended = new CountDownLatch(count);
        List<Thread> threads = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Thread thread = new Thread(() -> {
                try {
                    parked.countDown();
                    gate.await();
                    call.run();
                }
                catch (Exception ex) {
                    // interrupted at the end, as expected
                }
                finally {
                    ended.countDown();
                }
            }, "waiter-" + i);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        parked.await();
        awaitState(threads, Thread.State.WAITING);
        long parkedHeap = usedHeapAfterGc();
        long nativeParked = threadNativeKb();
        // the parked histogram stays reachable until the waiting state is measured, so it
        // is in both states the waiter figure compares
        Map<String, long[]> parkedHistogram = (label != null) ? histogram() : Map.of();
        long parkedHeapWithHistogram = usedHeapAfterGc();
        gate.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (queued.getAsInt() < count && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        int waiting = queued.getAsInt();
        awaitState(threads, Thread.State.TIMED_WAITING);
        long waitingHeap = usedHeapAfterGc();
        long nativeWaiting = threadNativeKb();
        Map<String, long[]> waitingHistogram = (label != null) ? histogram() : Map.of();
        int stillWaiting = queued.getAsInt();
        threads.forEach(Thread::interrupt);
        ended.await(60, TimeUnit.SECONDS);
        if (label == null) {
            return;
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "## %,d waiters in %s (%,d queued when measured, %,d after)%n", count, label,
                waiting, stillWaiting);
        System.out.printf(Locale.ROOT, "caller thread, parked on a latch (Thread object etc.): %s per thread%n",
                bytes((parkedHeap - before) / (double) count));
        System.out.printf(Locale.ROOT, "waiting call, minus the parked caller: %s per waiter (%s for all)%n",
                bytes((waitingHeap - parkedHeapWithHistogram) / (double) count),
                kb(waitingHeap - parkedHeapWithHistogram));
        if (nativeBefore >= 0) {
            System.out.printf(Locale.ROOT,
                    "native memory of the caller threads (NMT Thread, committed, mostly stack): %s per thread "
                            + "parked, %s per thread waiting%n",
                    bytes((nativeParked - nativeBefore) * 1024.0 / count),
                    bytes((nativeWaiting - nativeBefore) * 1024.0 / count));
        }
        System.out.println("what a waiting call adds, per waiter (class histogram, live objects):");
        printDelta(parkedHistogram, waitingHistogram, count, count * 8L);
    }

    private static void printDelta(Map<String, long[]> from, Map<String, long[]> to, int count, long minBytes) {
        Map<String, long[]> delta = new HashMap<>();
        to.forEach((name, value) -> {
            long[] base = from.getOrDefault(name, new long[2]);
            delta.put(name, new long[] { value[0] - base[0], value[1] - base[1] });
        });
        delta.entrySet()
            .stream()
            .filter((entry) -> entry.getValue()[1] >= minBytes)
            .sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]))
            .limit(15)
            .forEach((entry) -> System.out.printf(Locale.ROOT, "  %10.2f x %-70s %10.1f B%n",
                    entry.getValue()[0] / (double) count, entry.getKey(), entry.getValue()[1] / (double) count));
    }

    private static void awaitState(List<Thread> threads, Thread.State state) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (Thread thread : threads) {
            while (thread.getState() != state && thread.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
        }
    }

    private static long usedHeapAfterGc() {
        return Heap.usedAfterGc();
    }

    private static Map<String, long[]> histogram() throws Exception {
        String text = diagnosticCommand("gcClassHistogram");
        Map<String, long[]> histogram = new HashMap<>();
        for (String line : text.split("\n")) {
            Matcher matcher = HISTOGRAM_LINE.matcher(line);
            if (matcher.find()) {
                histogram.put(matcher.group(3),
                        new long[] { Long.parseLong(matcher.group(1)), Long.parseLong(matcher.group(2)) });
            }
        }
        return histogram;
    }

    /** Committed native memory of threads in KB, or -1 without native memory tracking. */
    private static long threadNativeKb() {
        try {
            Matcher matcher = NMT_THREAD.matcher(diagnosticCommand("vmNativeMemory", "summary"));
            return matcher.find() ? Long.parseLong(matcher.group(2)) : -1;
        }
        catch (Exception ex) {
            return -1;
        }
    }

    private static String diagnosticCommand(String operation, String... arguments) throws Exception {
        return (String) ManagementFactory.getPlatformMBeanServer()
            .invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"), operation, new Object[] { arguments },
                    new String[] { String[].class.getName() });
    }

    private static void reachabilityFence(Object object) {
        java.lang.ref.Reference.reachabilityFence(object);
    }

    private static String bytes(double bytes) {
        return (Math.abs(bytes) < 10_240) ? String.format(Locale.ROOT, "%,.0f B", bytes)
                : String.format(Locale.ROOT, "%,.1f KB", bytes / 1024);
    }

    private static String kb(long bytes) {
        return (Math.abs(bytes) < 10L << 20) ? String.format(Locale.ROOT, "%,.1f KB", bytes / 1024.0)
                : String.format(Locale.ROOT, "%,.1f MB", bytes / 1024.0 / 1024);
    }

    @FunctionalInterface
    private interface Call {

        void run() throws Exception;

    }

}
