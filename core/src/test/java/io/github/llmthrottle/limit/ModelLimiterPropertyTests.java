package io.github.llmthrottle.limit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.time.FakeClock;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Random interleavings of admissions, settlements, releases, interrupts and the passing
 * of time: whatever happens, once every permit is released and time has passed, nothing
 * is left taken.
 */
class ModelLimiterPropertyTests {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private static final ModelLimits LIMITS = new ModelLimits(20L, 10_000L, 4_000L, 3);

    private static final TenantLimits TENANT = new TenantLimits(5L, 3_000L, null);

    sealed interface Op permits Acquire, Settle, Release, Interrupt, Advance {

    }

    record Acquire(Priority priority, int tenant, long input, long output, int maxWaitSeconds) implements Op {
    }

    record Settle(int index, long input, long output) implements Op {
    }

    record Release(int index, Permit.Outcome outcome) implements Op {
    }

    record Interrupt(int index) implements Op {
    }

    record Advance(long millis) implements Op {
    }

    @Property(tries = 100)
    void nothingLeaksWhateverHappens(@ForAll("operations") @Size(max = 25) List<Op> operations) {
        FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z");
        LocalBucketStore store = new LocalBucketStore(clock);
        ModelLimiter limiter = new ModelLimiter("c", "m", LIMITS, 4, Duration.ofSeconds(30),
                (tenant) -> "t1".equals(tenant) ? TENANT : null, store, clock.pollingWaits(),
                LimiterOptions.WITHOUT_SLOW_START);
        List<AsyncAcquire> acquires = new ArrayList<>();
        for (Op op : operations) {
            if (op instanceof Acquire acquire) {
                String tenant = switch (acquire.tenant()) {
                    case 0 -> null;
                    case 1 -> "t1";
                    default -> "t2";
                };
                acquires.add(AsyncAcquire.start(limiter, new AdmissionRequest(acquire.priority(), tenant,
                        acquire.input(), acquire.output(), Duration.ofSeconds(acquire.maxWaitSeconds()))));
            }
            else if (op instanceof Settle settle) {
                Permit permit = admitted(acquires, settle.index());
                if (permit != null) {
                    permit.settle(settle.input(), settle.output());
                }
            }
            else if (op instanceof Release release) {
                Permit permit = admitted(acquires, release.index());
                if (permit != null) {
                    permit.release(release.outcome());
                }
            }
            else if (op instanceof Interrupt interrupt && !acquires.isEmpty()) {
                AsyncAcquire target = acquires.get(interrupt.index() % acquires.size());
                if (!target.result.isDone()) {
                    target.thread.interrupt();
                    await().pollDelay(Duration.ZERO)
                        .pollInterval(Duration.ofMillis(2))
                        .atMost(PATIENCE)
                        .until(target.result::isDone);
                }
            }
            else if (op instanceof Advance advance) {
                clock.advance(Duration.ofMillis(advance.millis()));
            }
            awaitSettled(limiter, acquires);
        }
        // Everything ends: release every permit, let every deadline pass, release what
        // got in.
        for (int round = 0; round < 2; round++) {
            acquires.stream().filter(AsyncAcquire::admitted).forEach((a) -> a.permit().release(Permit.Outcome.IGNORED));
            clock.advance(Duration.ofHours(10));
            await().pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(2))
                .atMost(PATIENCE)
                .until(() -> acquires.stream().allMatch((a) -> a.result.isDone()));
        }
        acquires.forEach((a) -> {
            if (!a.admitted()) {
                assertThat(a.failure()).isInstanceOfAny(LlmThrottleException.class, InterruptedException.class);
            }
        });
        clock.advance(Duration.ofHours(10));
        LimiterState state = limiter.state();
        assertThat(state.inFlight()).isZero();
        assertThat(state.queued().total()).isZero();
        assertThat(state.available()).isEqualTo(new LimiterState.Available(20L, 10_000L, 4_000L, null));
        assertThat(store.bucket("c:m:tenant:t1:requests", 5).availableTokens()).isEqualTo(5);
        assertThat(store.bucket("c:m:tenant:t1:input-tokens", 3_000).availableTokens()).isEqualTo(3_000);
    }

    private static Permit admitted(List<AsyncAcquire> acquires, int index) {
        List<AsyncAcquire> admitted = acquires.stream().filter(AsyncAcquire::admitted).toList();
        return admitted.isEmpty() ? null : admitted.get(index % admitted.size()).permit();
    }

    /**
     * Waits until every call still running is waiting in the queue (none is on its way in
     * or out).
     */
    private static void awaitSettled(ModelLimiter limiter, List<AsyncAcquire> acquires) {
        await().pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(2))
            .atMost(PATIENCE)
            .until(() -> acquires.stream().filter((a) -> !a.result.isDone()).count() == limiter.state()
                .queued()
                .total());
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<Op> acquire = Combinators
            .combine(Arbitraries.of(Priority.class), Arbitraries.integers().between(0, 2),
                    Arbitraries.longs().between(0, 12_000), Arbitraries.longs().between(0, 5_000),
                    Arbitraries.integers().between(0, 60))
            .as(Acquire::new);
        Arbitrary<Op> settle = Combinators
            .combine(Arbitraries.integers().between(0, 20), Arbitraries.longs().between(0, 15_000),
                    Arbitraries.longs().between(0, 6_000))
            .as(Settle::new);
        Arbitrary<Op> release = Combinators
            .combine(Arbitraries.integers().between(0, 20), Arbitraries.of(Permit.Outcome.class))
            .as(Release::new);
        Arbitrary<Op> interrupt = Arbitraries.integers().between(0, 20).map(Interrupt::new);
        Arbitrary<Op> advance = Arbitraries.longs().between(1, 90_000).map(Advance::new);
        return Arbitraries
            .frequencyOf(Tuple(4, acquire), Tuple(2, settle), Tuple(3, release), Tuple(1, interrupt), Tuple(3, advance))
            .list()
            .ofMaxSize(25);
    }

    private static net.jqwik.api.Tuple.Tuple2<Integer, Arbitrary<? extends Op>> Tuple(int weight,
            Arbitrary<? extends Op> arbitrary) {
        return net.jqwik.api.Tuple.of(weight, arbitrary);
    }

}
