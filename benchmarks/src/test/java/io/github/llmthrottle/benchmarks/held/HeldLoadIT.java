package io.github.llmthrottle.benchmarks.held;

import java.time.Duration;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.QueueFullException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The held-load runs of the report in a few seconds and small counts: not figures, but
 * the invariants every run must keep (every call ends, with its body or a typed
 * exception, and nothing is left behind: no permit held, no queue place taken, no request
 * open at the provider). The build runs on Java 17, so the virtual-thread case (Java 21+)
 * is not a test here but the documented run of
 * {@code ConcurrentCallers --threads virtual} on the JDK 25 beside it (REPORT.md §5.1): a
 * test that could only be skipped on the build's own JDK would prove nothing.
 */
class HeldLoadIT {

    @Test
    void concurrentCallersOnPlatformThreadsAllEndTypedAndLeaveNothingBehind() throws Exception {
        ConcurrentCallers.Result result = ConcurrentCallers.run(small(CallerThreads.PLATFORM));
        System.out.println(result.report());
        assertAccountedFor(result);
    }

    @Test
    void aShortSoakWithFaultsAccountsForEveryCallAndLeavesNothingBehind() throws Exception {
        Soak.Settings settings = Soak.Settings.of(Duration.ofSeconds(3))
            .withSampleEvery(Duration.ofSeconds(3))
            .withFaultPeriod(Duration.ofSeconds(3));
        Soak.Result result = Soak.run(settings, (sample) -> System.out.println(sample.row()));
        System.out.println(result.report());
        assertThat(result.problems()).isEmpty();
        assertThat(result.untyped()).as("calls that failed untyped").isZero();
        assertThat(result.started()).isEqualTo(30);
        assertThat(result.ended()).isEqualTo(result.started());
        assertThat(result.faults()).containsKeys("529 bursts (4 in a row)", "429 bursts (3 in a row, retry-after 1)");
        assertThat(result.provider().overloaded()).as("529s the provider sent").isGreaterThanOrEqualTo(4);
        assertThat(result.provider().rateLimited()).as("429s the provider sent").isGreaterThanOrEqualTo(3);
        assertThat(result.inFlight()).isZero();
        assertThat(result.queued()).isZero();
    }

    /**
     * 200 callers, a queue of 60, max-wait 2 s, every fifth caller interrupted while it
     * waits: every outcome type in a few seconds.
     */
    private static ConcurrentCallers.Settings small(CallerThreads threads) {
        return ConcurrentCallers.Settings.of(200, threads)
            .withQueueCapacity(60)
            .withMaxWait(Duration.ofSeconds(2))
            .withWarmUp(16)
            .withCancelEvery(5);
    }

    private static void assertAccountedFor(ConcurrentCallers.Result result) {
        assertThat(result.problems()).isEmpty();
        assertThat(result.started()).isEqualTo(200);
        assertThat(result.ended()).isEqualTo(200);
        assertThat(result.untyped()).as("calls that failed untyped").isZero();
        assertThat(result.outcomes()).containsKey(Outcomes.SUCCEEDED);
        assertThat(result.outcomes().keySet()).as("outcomes")
            .containsAnyOf(QueueFullException.class.getSimpleName(), AdmissionTimeoutException.class.getSimpleName());
        assertThat(result.inFlight()).isZero();
        assertThat(result.queued()).isZero();
        assertThat(result.providerInFlight()).isZero();
    }

}
