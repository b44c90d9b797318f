package io.github.llmthrottle.benchmarks.held;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.QueueFullException;
import io.github.llmthrottle.benchmarks.MessagesBodies;
import io.github.llmthrottle.benchmarks.ThrottleApplication;
import io.github.llmthrottle.benchmarks.memory.Heap;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.ModelLimits;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.client.RestClient;

/**
 * Many callers at once against one tight model limit, each making one call through the
 * auto-configured {@code anthropicRestClient} to the simulated provider on loopback: the
 * run is bounded (every call ends within {@code max-wait} of its arrival, plus its
 * exchange), and it checks what must hold under that load:
 * <ul>
 * <li>every call ends, either with its 2xx body or with a typed exception, and the
 * outcomes are counted by type ({@link Outcomes}): with a queue smaller than the crowd,
 * the calls that find it full fail at once with {@link QueueFullException}, those that
 * wait longer than {@code max-wait} with {@link AdmissionTimeoutException}, the others
 * succeed;</li>
 * <li>nothing is left behind: at the end every limiter shows no call in flight (no permit
 * held) and an empty queue, and the provider no request open;</li>
 * <li>the heap a waiting call holds: the used heap (after full collections) with the
 * callers waiting in the queue, minus the same with the callers parked on a latch just
 * before they call, divided by the calls waiting;</li>
 * <li>virtual threads pinned to their carrier while blocked ({@link PinnedThreads}).</li>
 * </ul>
 * The limit: {@code requests-per-minute} R for the model (the provider's limit too). The
 * minute's burst that a full bucket holds is taken before the callers arrive (in-process,
 * through the limiter), so that the run sees the steady rate of R/60 calls a second from
 * its first second. <pre>
 * java -cp benchmarks/target/benchmarks.jar io.github.llmthrottle.benchmarks.held.ConcurrentCallers \
 *     --callers 5000 --threads platform            # or --callers 20000 --threads virtual on Java 21+
 * </pre> Options: {@code --queue N} (queue capacity, default half the callers),
 * {@code --max-wait SECONDS} (default 30), {@code --rpm R} (default 1200),
 * {@code --cancel-every N} (interrupt every N-th caller whose call is still running once
 * the heap is measured; default 0, none: an interrupted call ends with its
 * {@code InterruptedIOException} and its thread keeps the interrupt flag).
 */
public final class ConcurrentCallers {

    static final String MODEL = "claude-sonnet-4-5";

    /** The outcome of a call whose caller was interrupted while it waited. */
    static final String CANCELLED = "ResourceAccessException(InterruptedIOException)";

    /**
     * The outcomes the scenario is built to have; others (typed too) say that the
     * provider failed or timed out.
     */
    static final Set<String> EXPECTED = Set.of(Outcomes.SUCCEEDED, QueueFullException.class.getSimpleName(),
            AdmissionTimeoutException.class.getSimpleName(), CANCELLED);

    private ConcurrentCallers() {
    }

    public static void main(String[] args) throws Exception {
        Settings settings = Settings.of(5_000, CallerThreads.PLATFORM);
        for (int i = 0; i < args.length; i++) {
            String value = (i + 1 < args.length) ? args[i + 1] : "";
            switch (args[i]) {
                case "--callers" -> settings = settings.withCallers(Integer.parseInt(value));
                case "--threads" -> settings = settings.withThreads(CallerThreads.of(value));
                case "--queue" -> settings = settings.withQueueCapacity(Integer.parseInt(value));
                case "--max-wait" -> settings = settings.withMaxWait(Duration.ofSeconds(Long.parseLong(value)));
                case "--rpm" -> settings = settings.withRequestsPerMinute(Integer.parseInt(value));
                case "--cancel-every" -> settings = settings.withCancelEvery(Integer.parseInt(value));
                default -> throw new IllegalArgumentException("Unknown argument " + args[i]
                        + "; use --callers N --threads platform|virtual --queue N --max-wait SECONDS --rpm R "
                        + "--cancel-every N");
            }
            i++;
        }
        System.out.printf(Locale.ROOT, "JDK %s, %d CPUs, max heap %d MB, GC %s%n", Runtime.version(),
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20,
                ManagementFactory.getGarbageCollectorMXBeans().get(0).getName());
        System.out.println(settings);
        Result result = run(settings);
        System.out.println(result.report());
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    /**
     * Runs the scenario once, in this JVM.
     * @param settings what to run
     * @return what happened
     * @throws Exception if the run cannot be set up
     */
    public static Result run(Settings settings) throws Exception {
        ThreadFactory threads = settings.threads().factory("caller-");
        try (LlmSimulator simulator = LlmSimulator.builder()
            .model(MODEL, ModelLimits.of(settings.requestsPerMinute(), 100_000_000, 100_000_000))
            .latency(Duration.ofMillis(50), Duration.ZERO)
            .outputTokens(10)
            .start();
                ConfigurableApplicationContext context = ThrottleApplication.start(simulator.baseUrl(), MODEL,
                        Map.of("requests-per-minute", settings.requestsPerMinute()),
                        "llm.throttle.queue.capacity=" + settings.queueCapacity(),
                        "llm.throttle.queue.max-wait=" + settings.maxWait().toMillis() + "ms",
                        // one warning per failed call is the library's behaviour, but
                        // thousands of them would drown the figures
                        "logging.level.io.github.llmthrottle.client.ThrottledCall=error")) {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            LimiterRegistry limiters = context.getBean(LimiterRegistry.class);
            ModelLimiter limiter = limiters.limiter("anthropic", MODEL);
            String body = MessagesBodies.singleTurn(MODEL, 16, "Say hello in one short sentence, please.");
            // the path warmed up as in a running application (classes loaded, compiled),
            // then the rest of the minute's burst is taken
            HeldCalls.warmUp(client, body, settings.warmUp());

            Outcomes outcomes = new Outcomes();
            int callers = settings.callers();
            CountDownLatch parked = new CountDownLatch(callers);
            CountDownLatch go = new CountDownLatch(1);
            CountDownLatch ended = new CountDownLatch(callers);
            CountDownLatch leave = new CountDownLatch(1);
            AtomicLong lastEnd = new AtomicLong();
            long heapBefore = Heap.usedAfterGc();
            List<Thread> started = new ArrayList<>(callers);
            AtomicIntegerArray done = new AtomicIntegerArray(callers);
            for (int i = 0; i < callers; i++) {
                int index = i;
                Thread thread = threads.newThread(() -> {
                    parked.countDown();
                    try {
                        go.await();
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    outcomes.start();
                    try {
                        HeldCalls.post(client, body);
                        outcomes.succeeded();
                    }
                    catch (Throwable ex) {
                        outcomes.failed(ex);
                    }
                    finally {
                        done.set(index, 1);
                        lastEnd.accumulateAndGet(System.nanoTime(), Math::max);
                        ended.countDown();
                    }
                    // a caller whose call ended stays until the waiting calls are
                    // measured, so that the baseline (every caller parked) still holds
                    try {
                        leave.await();
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                });
                thread.start();
                started.add(thread);
            }
            parked.await();
            Thread.sleep(200);
            long heapParked = Heap.usedAfterGc();

            PinnedThreads pinning = (settings.threads() == CallerThreads.VIRTUAL) ? PinnedThreads.record() : null;
            HeapPeak peak = new HeapPeak();
            // the model is held (as after a 429) while the callers arrive and the heap is
            // measured, so that the calls waiting stay the same while it is; the pause
            // ends before max-wait, or arriving calls would fail at once
            Duration hold = settings.maxWait().minusSeconds(1);
            int drained = HeldCalls.drain(limiter);
            limiter.pause(hold);
            simulator.resetStats();
            long released = System.nanoTime();
            go.countDown();
            // every caller has arrived: its call ended, waits in the queue, or is in
            // flight
            long arrivalDeadline = released + hold.toNanos();
            int arrivedQueued;
            while (true) {
                LimiterState state = limiter.state();
                arrivedQueued = state.queued().total();
                if (outcomes.ended() + arrivedQueued + state.inFlight() >= callers
                        || System.nanoTime() > arrivalDeadline) {
                    break;
                }
                Thread.sleep(10);
            }
            long arrived = System.nanoTime() - released;
            int queuedBefore = limiter.state().queued().total();
            long heapWaiting = Heap.usedAfterGc();
            int queuedAfter = limiter.state().queued().total();
            boolean held = limiter.state().pausedUntil() != null;
            // callers that give up while they wait (their thread interrupted): their
            // places in the queue must come back at once
            int cancelled = 0;
            int queuedBeforeCancel = limiter.state().queued().total();
            long cancelledAt = System.nanoTime();
            for (int i = 0; settings.cancelEvery() > 0 && i < callers; i += settings.cancelEvery()) {
                if (done.get(i) == 0) {
                    started.get(i).interrupt();
                    cancelled++;
                }
            }
            // while the model is held, only the cancelled calls leave the queue
            while (cancelled > 0 && limiter.state().queued().total() > queuedBeforeCancel - cancelled
                    && System.nanoTime() - cancelledAt < TimeUnit.SECONDS.toNanos(10)) {
                Thread.sleep(1);
            }
            Duration placesBack = Duration.ofNanos(System.nanoTime() - cancelledAt);
            int queuedAfterCancel = limiter.state().queued().total();
            limiter.endPause();
            leave.countDown();

            long bound = settings.maxWait().toNanos() + TimeUnit.SECONDS.toNanos(120);
            boolean allEnded = ended.await(bound - (System.nanoTime() - released), TimeUnit.NANOSECONDS);
            long wall = lastEnd.get() - released;
            outcomes.byOutcome().keySet().stream().filter((name) -> !EXPECTED.contains(name)).forEach((name) -> {
                System.err.println("First call that ended with " + name + ":");
                outcomes.example(name).printStackTrace();
            });
            long peakHeap = peak.peak();
            peak.close();
            PinnedThreads.Counts pinned = (pinning != null) ? pinning.stop() : PinnedThreads.Counts.NONE;
            if (pinning != null) {
                pinning.close();
            }
            for (Thread thread : started) {
                thread.join(TimeUnit.SECONDS.toMillis(5));
            }
            // the last permit is released just after its caller has its answer
            LimiterState end = HeldCalls.awaitIdle(limiter);
            ModelTotals.Snapshot totals = context.getBean(LlmThrottleRegistry.class)
                .getClient("anthropic")
                .model(MODEL)
                .getTotals()
                .snapshot();
            double waiting = (queuedBefore + queuedAfter) / 2.0;
            return new Result(settings, drained, outcomes.started(), outcomes.byOutcome(), outcomes.untyped(),
                    cancelled, queuedBeforeCancel - queuedAfterCancel, placesBack, outcomes.interruptLost(), !allEnded,
                    Duration.ofNanos(arrived), held, Duration.ofNanos(wall), heapBefore, heapParked, heapWaiting,
                    waiting, peakHeap, pinned, HeldCalls.inFlight(limiters), HeldCalls.queued(limiters),
                    simulator.inFlight(), end, totals, simulator.stats(MODEL).attempts());
        }
    }

    /**
     * What to run.
     *
     * @param callers the callers, each making one call at the same moment
     * @param threads what they run on
     * @param queueCapacity {@code llm.throttle.queue.capacity}
     * @param maxWait {@code llm.throttle.queue.max-wait}
     * @param requestsPerMinute the model's limit, configured and the provider's
     * @param warmUp calls made before the callers come, to warm the path up
     * @param cancelEvery every how many callers one is interrupted while its call waits
     * (0 for none)
     */
    public record Settings(int callers, CallerThreads threads, int queueCapacity, Duration maxWait,
            int requestsPerMinute, int warmUp, int cancelEvery) {

        /**
         * The report's settings for {@code callers}: a queue of half of them, the default
         * max-wait of 30 s, 1,200 requests a minute (20 a second).
         * @param callers the callers
         * @param threads what they run on
         * @return the settings
         */
        public static Settings of(int callers, CallerThreads threads) {
            return new Settings(callers, threads, callers / 2, Duration.ofSeconds(30), 1_200, 200, 0);
        }

        public Settings withCallers(int callers) {
            return new Settings(callers, this.threads, callers / 2, this.maxWait, this.requestsPerMinute, this.warmUp,
                    this.cancelEvery);
        }

        public Settings withThreads(CallerThreads threads) {
            return new Settings(this.callers, threads, this.queueCapacity, this.maxWait, this.requestsPerMinute,
                    this.warmUp, this.cancelEvery);
        }

        public Settings withQueueCapacity(int queueCapacity) {
            return new Settings(this.callers, this.threads, queueCapacity, this.maxWait, this.requestsPerMinute,
                    this.warmUp, this.cancelEvery);
        }

        public Settings withMaxWait(Duration maxWait) {
            return new Settings(this.callers, this.threads, this.queueCapacity, maxWait, this.requestsPerMinute,
                    this.warmUp, this.cancelEvery);
        }

        public Settings withCancelEvery(int cancelEvery) {
            return new Settings(this.callers, this.threads, this.queueCapacity, this.maxWait, this.requestsPerMinute,
                    this.warmUp, cancelEvery);
        }

        public Settings withWarmUp(int warmUp) {
            return new Settings(this.callers, this.threads, this.queueCapacity, this.maxWait, this.requestsPerMinute,
                    warmUp, this.cancelEvery);
        }

        public Settings withRequestsPerMinute(int requestsPerMinute) {
            return new Settings(this.callers, this.threads, this.queueCapacity, this.maxWait, requestsPerMinute,
                    this.warmUp, this.cancelEvery);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT,
                    "%,d callers on %s threads, one call each at the same moment; model limit %,d requests a minute "
                            + "(%.1f a second), queue capacity %,d, max-wait %s, %,d calls of warm-up%s",
                    this.callers, this.threads, this.requestsPerMinute, this.requestsPerMinute / 60.0,
                    this.queueCapacity, this.maxWait, this.warmUp, (this.cancelEvery > 0)
                            ? ", every " + this.cancelEvery + "-th caller interrupted while it waits" : "");
        }

    }

    /**
     * What a run measured.
     *
     * @param settings what ran
     * @param drained the requests of the minute's burst taken before the callers came
     * @param started calls started
     * @param outcomes calls ended, by outcome
     * @param untyped calls that failed with something else than an
     * {@link io.github.llmthrottle.LlmThrottleException} or their interruption
     * @param cancelled callers interrupted while their call was still running
     * @param placesFreed places in the queue given back after the interrupts (the model
     * held, so only by the cancelled calls)
     * @param placesBack how long after the interrupts they were all back
     * @param interruptLost calls that ended with their interruption but without the
     * thread's interrupt flag
     * @param hung whether some call had not ended by the bound
     * @param arrival from the release of the callers until every call had arrived (ended,
     * queued or in flight)
     * @param held whether the model was still held when the heap was measured (no call
     * admitted while the callers arrived and the heap was measured)
     * @param wall from the release of the callers until the last call ended
     * @param heapBefore used heap after GC before the callers' threads were started
     * @param heapParked the same with every caller parked on the latch
     * @param heapWaiting the same with the calls waiting in the queue
     * @param waiting calls waiting in the queue while {@code heapWaiting} was measured
     * (the mean of before and after)
     * @param peakHeap highest used heap during the calls, garbage included
     * @param pinned virtual-thread pinning during the calls
     * @param inFlight calls in flight at the end, over every limiter
     * @param queued calls queued at the end, over every limiter
     * @param providerInFlight requests the provider was still serving at the end
     * @param state the model's limiter state at the end
     * @param totals the model's totals as the endpoint shows them
     * @param attempts HTTP requests the provider saw during the calls
     */
    public record Result(Settings settings, int drained, long started, Map<String, Long> outcomes, long untyped,
            int cancelled, int placesFreed, Duration placesBack, long interruptLost, boolean hung, Duration arrival,
            boolean held, Duration wall, long heapBefore, long heapParked, long heapWaiting, double waiting,
            long peakHeap, PinnedThreads.Counts pinned, int inFlight, int queued, int providerInFlight,
            LimiterState state, ModelTotals.Snapshot totals, long attempts) {

        /**
         * The calls that ended, whatever their outcome.
         * @return the count
         */
        public long ended() {
            return this.outcomes.values().stream().mapToLong(Long::longValue).sum();
        }

        /**
         * Heap per call waiting in the queue, the caller's thread excluded.
         * @return bytes
         */
        public double heapPerWaitingCall() {
            return (this.waiting > 0) ? (this.heapWaiting - this.heapParked) / this.waiting : Double.NaN;
        }

        /**
         * Heap per caller parked on the latch (its thread; with virtual threads, its
         * stack too).
         * @return bytes
         */
        public double heapPerParkedCaller() {
            return (this.heapParked - this.heapBefore) / (double) this.settings.callers();
        }

        /**
         * What went wrong, empty when every invariant held.
         * @return the problems
         */
        public List<String> problems() {
            return CallersReport.problems(this);
        }

        /**
         * The figures, as lines of text and one Markdown table row.
         * @return the report
         */
        public String report() {
            return CallersReport.report(this);
        }

    }

}
