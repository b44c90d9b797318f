package io.github.llmthrottle.benchmarks.jmh;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.LimiterOptions;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.time.TimeSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Admission of one attempt and its end: {@code acquire}, {@code settle} with the
 * provider's usage, {@code release}, on one model's limiter with request, input and
 * output token limits so high that they never bind (every call is admitted at once, so
 * this is the fixed cost of the bookkeeping), from one thread and from four threads
 * sharing the limiter.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ModelLimiterBenchmark {

    /**
     * Far above any rate a benchmark reaches, below Bucket4j's ceiling of one token a
     * nanosecond.
     */
    private static final long NEVER_BINDS = 10_000_000_000L;

    private final ModelLimiter limiter = new ModelLimiter("anthropic", "claude-sonnet-4-5",
            new ModelLimits(NEVER_BINDS, NEVER_BINDS, NEVER_BINDS, null), 1000, Duration.ofSeconds(30),
            (tenant) -> null, new LocalBucketStore(TimeSource.system()), TimeSource.system(),
            LimiterOptions.WITHOUT_SLOW_START);

    private final AdmissionRequest request = new AdmissionRequest(Priority.NORMAL, null, 512, 1024, null);

    @Benchmark
    @Threads(1)
    public Permit oneThread() throws InterruptedException {
        return admitAndRelease();
    }

    @Benchmark
    @Threads(4)
    public Permit fourThreads() throws InterruptedException {
        return admitAndRelease();
    }

    private Permit admitAndRelease() throws InterruptedException {
        Permit permit = this.limiter.acquire(this.request);
        permit.settle(498, 50);
        permit.release(Permit.Outcome.SUCCESS);
        return permit;
    }

}
