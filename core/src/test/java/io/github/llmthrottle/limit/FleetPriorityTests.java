package io.github.llmthrottle.limit;

import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.limit.AdmissionQueue.Blocker;
import io.github.llmthrottle.limit.AdmissionQueue.Waiter;
import io.github.llmthrottle.store.BucketKeys;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.store.WaitingDemand;
import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What a take from a shared store reports of this instance's queue: the priority a call
 * has after waiting, and the demand of higher priorities behind the taker.
 */
class FleetPriorityTests {

    private static final long STEP = AdmissionQueue.PRIORITY_STEP.toNanos();

    private final FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z");

    private final ReentrantLock lock = new ReentrantLock();

    private final AdmissionQueue queue = new AdmissionQueue(100, new TenantFairShare(TenantWeights.NONE,
            new BucketSet(new LocalBucketStore(this.clock), BucketKeys.model("anthropic", "opus"))));

    @Test
    void aCallAgesAsInTheLocalQueue() {
        Waiter batch = add(Priority.BATCH, 100, 10, 0);
        assertThat(FleetPriority.effective(batch, 0)).isEqualTo(Priority.BATCH);
        assertThat(FleetPriority.effective(batch, STEP - 1)).isEqualTo(Priority.BATCH);
        assertThat(FleetPriority.effective(batch, STEP)).isEqualTo(Priority.NORMAL);
        assertThat(FleetPriority.effective(batch, 2 * STEP - 1)).isEqualTo(Priority.NORMAL);
        assertThat(FleetPriority.effective(batch, 2 * STEP)).isEqualTo(Priority.REALTIME);
        Waiter normal = add(Priority.NORMAL, 100, 10, 0);
        assertThat(FleetPriority.effective(normal, 0)).isEqualTo(Priority.NORMAL);
        assertThat(FleetPriority.effective(normal, STEP)).isEqualTo(Priority.REALTIME);
        assertThat(FleetPriority.effective(add(Priority.REALTIME, 100, 10, 0), 0)).isEqualTo(Priority.REALTIME);
    }

    @Test
    void theDemandBehindTheTakerIsSummedPerPriorityAndBucket() {
        Waiter taker = add(Priority.NORMAL, 1_000, 100, 0);
        add(Priority.REALTIME, 200, 20, 0);
        add(Priority.REALTIME, 300, 30, 0);
        add(Priority.NORMAL, 400, 40, 0);
        add(Priority.BATCH, 500, 50, 0);
        // a BATCH call that waited two steps: REALTIME now
        add(Priority.BATCH, 600, 60, -2 * STEP);
        Waiter heldByItsTenant = add(Priority.REALTIME, 700, 70, 0);
        heldByItsTenant.blockedBy = Blocker.TENANT;
        WaitingDemand demand = FleetPriority.demand(this.queue, taker,
                new Dimension[] { Dimension.REQUESTS, Dimension.INPUT_TOKENS, Dimension.OUTPUT_TOKENS }, 2, 0);
        assertThat(demand.priority()).isEqualTo(Priority.NORMAL);
        assertThat(demand.realtime()).containsExactly(3, 1_100);
        assertThat(demand.normal()).containsExactly(1, 400);
    }

    @Test
    void demandNeedsOneEntryPerModelBucketForEachPriority() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> new WaitingDemand(Priority.BATCH, new long[2], new long[1]))
            .withMessageContaining("one entry per model bucket");
    }

    private Waiter add(Priority priority, long input, long output, long arrival) {
        return this.queue.add(new AdmissionRequest(priority, null, input, output, null), null, Duration.ofMinutes(5),
                arrival, arrival + Duration.ofMinutes(5).toNanos(), this.lock.newCondition(), null);
    }

}
