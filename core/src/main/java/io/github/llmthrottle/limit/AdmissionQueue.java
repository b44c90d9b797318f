package io.github.llmthrottle.limit;

import java.time.Duration;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.QueueFullException;
import io.github.llmthrottle.time.Nanos;
import io.github.llmthrottle.time.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The bounded priority queue in front of one {@link ModelLimiter}: the calls of one
 * client and model waiting for admission, in the order in which they will be admitted.
 *
 * <p>
 * The queue is bounded by its capacity over all priorities (a call that cannot be
 * admitted at once and finds the queue full fails with
 * {@link io.github.llmthrottle.QueueFullException}). It is ordered by <em>virtual arrival
 * time</em>: the arrival time plus {@link #PRIORITY_STEP} for {@code NORMAL} and twice
 * that for {@code BATCH}, then by arrival. So priorities are strict among calls that
 * arrived within one step of each other, FIFO holds within a priority, and waiting ages a
 * call: a {@code BATCH} call that has waited more than two steps (60 s) is ahead of a
 * {@code REALTIME} call arriving now, and never starves. With tenant weights configured,
 * a tenant's call is ranked by its virtual start ({@link TenantFairShare}) instead of its
 * arrival, so that waiting tenants share the model in proportion to their weights.
 *
 * <p>
 * The limiter's {@link AdmissionGate} says of each waiter, in this order, whether it can
 * go now ({@link #dispatch(long, AdmissionGate)}). Nobody behind a call held back by the
 * model's resources goes ahead of it (a small call does not overtake a large one
 * forever). A call held back only by its own tenant's buckets (the model could admit it)
 * keeps its place, but later calls of <em>other</em> tenants (or without tenant) that the
 * model and their tenants can admit go ahead of it; later calls of the same tenant do
 * not, so each tenant stays FIFO. A call that the model's buckets could take only after
 * its own deadline ({@link Waiter#beyondDeadline}) holds nobody back either: it would
 * block those behind it only to time out.
 *
 * <p>
 * Every waiter with a thread waits on a {@link Condition} of the limiter's lock until it
 * is signalled or its deadline passes; only the head of the queue also waits with a
 * timer, for the next moment at which time alone could let a call go
 * ({@link #waitUntil(Waiter)}), so that a long queue does not wake up all at once. A
 * waiter without a thread is the same entry, completed by the limiter's
 * {@link AsyncAdmission}, which keeps the timers instead. Times are nanoseconds of the
 * limiter's monotonic clock. Not thread-safe: the owning {@link ModelLimiter} guards it
 * with its lock.
 */
final class AdmissionQueue implements Iterable<AdmissionQueue.Waiter> {

    /** How much later than its arrival a call of each lower priority is ranked. */
    static final Duration PRIORITY_STEP = Duration.ofSeconds(30);

    private final int capacity;

    private final TreeSet<Waiter> waiters = new TreeSet<>(
            Comparator.comparingLong((Waiter waiter) -> waiter.rank).thenComparingLong((waiter) -> waiter.sequence));

    private final int[] queuedByPriority = new int[Priority.values().length];

    /** Waiting calls per tenant, for the share one tenant may hold. */
    private final Map<String, Integer> queuedByTenant = new HashMap<>();

    private long sequence;

    private @Nullable Waiter timerOwner;

    private long nextWake = Long.MAX_VALUE;

    private final TenantFairShare fairShare;

    AdmissionQueue(int capacity, TenantFairShare fairShare) {
        this.capacity = capacity;
        this.fairShare = fairShare;
    }

    /** Most calls waiting at once, all priorities together. */
    int capacity() {
        return this.capacity;
    }

    /**
     * The virtual arrival time of a call of {@code priority} arriving at {@code arrival}.
     */
    static long rank(Priority priority, long arrival) {
        return Nanos.saturatedAdd(arrival, priority.ordinal() * PRIORITY_STEP.toNanos());
    }

    /**
     * Puts a call in its place until {@code deadline}: its thread waits on
     * {@code condition}, or, without a thread, it is completed through {@code async}.
     */
    Waiter add(AdmissionRequest request, @Nullable BucketSet tenant, Duration maxWait, long arrival, long deadline,
            @Nullable Condition condition, @Nullable AsyncAdmission async) {
        long start = this.fairShare.start(request, arrival);
        Waiter waiter = new Waiter(request, tenant, maxWait, this.sequence++, rank(request.priority(), start), deadline,
                condition, async);
        this.waiters.add(waiter);
        counted(waiter, 1);
        return waiter;
    }

    private void counted(Waiter waiter, int delta) {
        this.queuedByPriority[waiter.request.priority().ordinal()] += delta;
        String tenant = waiter.request.tenant();
        if (tenant != null) {
            this.queuedByTenant.merge(tenant, delta, (a, b) -> (a + b == 0) ? null : a + b);
        }
    }

    /**
     * The places one tenant may hold: half of the capacity (at least one), so a tenant
     * held back by its own quota leaves room for the others.
     */
    int tenantShare() {
        return Math.max(1, this.capacity / 2);
    }

    /** Whether calls of {@code tenant} are waiting. */
    boolean holds(String tenant) {
        return this.queuedByTenant.containsKey(tenant);
    }

    /** Whether {@code tenant} holds more places than its share. */
    boolean isOverTenantShare(@Nullable String tenant) {
        return tenant != null && this.queuedByTenant.getOrDefault(tenant, 0) > tenantShare();
    }

    /** Whether more calls wait than the capacity allows. */
    boolean isOverCapacity() {
        return this.waiters.size() > this.capacity;
    }

    /**
     * The refusal of a call that must wait (not admitted, failed or taking) when the
     * queue, or its tenant's share of it, is over capacity; {@code null} if it may wait.
     */
    @Nullable QueueFullException refusal(Waiter waiter, String client, String model) {
        if (waiter.permit != null || waiter.failure != null || waiter.taking != null) {
            return null;
        }
        String tenant = waiter.request.tenant();
        if (isOverCapacity()) {
            return new QueueFullException(client, model, this.capacity, null);
        }
        if (tenant != null && isOverTenantShare(tenant)) {
            return new QueueFullException(client, model, tenant, tenantShare(), this.capacity);
        }
        return null;
    }

    /** Takes a waiter out of the queue, if it is still in it. */
    void remove(Waiter waiter) {
        if (this.waiters.remove(waiter)) {
            counted(waiter, -1);
        }
    }

    boolean isEmpty() {
        return this.waiters.isEmpty();
    }

    @Nullable Waiter head() {
        return this.waiters.isEmpty() ? null : this.waiters.first();
    }

    /** The waiters in queue order, read-only. */
    @Override
    public Iterator<Waiter> iterator() {
        return Collections.unmodifiableCollection(this.waiters).iterator();
    }

    /**
     * Admits every waiter that {@code gate} lets through, in queue order and by the rules
     * of the class description, and has the head of the queue wait with a timer for the
     * earliest moment at which time alone may let a call go.
     */
    void dispatch(long now, AdmissionGate gate) {
        long wake = Long.MAX_VALUE;
        Set<String> blockedTenants = null;
        Iterator<Waiter> iterator = this.waiters.iterator();
        while (iterator.hasNext()) {
            Waiter waiter = iterator.next();
            String tenant = waiter.request.tenant();
            if (blockedTenants != null && tenant != null && blockedTenants.contains(tenant)) {
                waiter.blockedBy = Blocker.TENANT;
                continue;
            }
            long retry = gate.examine(waiter, now, this);
            if (waiter.blockedBy == Blocker.MODEL && waiter.beyondDeadline && !isOverCapacity()) {
                // (over capacity, the call just added is refused as the queue is full)
                gate.failBeyondDeadline(waiter, retry, now);
            }
            if (waiter.permit != null || waiter.failure != null) {
                iterator.remove();
                counted(waiter, -1);
                continue;
            }
            wake = Math.min(wake, retry);
            if (waiter.blockedBy == Blocker.MODEL && waiter.beyondDeadline) {
                // It times out before time alone lets it go: it holds nobody back.
                continue;
            }
            if (waiter.blockedBy != Blocker.TENANT || tenant == null) {
                break;
            }
            if (blockedTenants == null) {
                blockedTenants = new HashSet<>();
            }
            blockedTenants.add(tenant);
        }
        scheduleWake(wake);
    }

    /**
     * Holds every waiter until {@code until} (a pause of the model): none is even looked
     * at.
     */
    void holdUntil(long until) {
        Waiter head = head();
        if (head != null) {
            head.blockedBy = Blocker.MODEL;
        }
        scheduleWake(until);
    }

    /** The waiter that waits with a timer, if any: the head of the queue. */
    @Nullable Waiter timerOwner() {
        return this.timerOwner;
    }

    /** When time alone may next let a call go, {@link Long#MAX_VALUE} for never. */
    long nextWake() {
        return this.nextWake;
    }

    /**
     * Until when a waiter waits before it looks again: the head of the queue until the
     * next wake or its deadline, whichever comes first, the others until their deadline.
     */
    long waitUntil(Waiter waiter) {
        return (waiter == this.timerOwner) ? Math.min(waiter.deadline, this.nextWake) : waiter.deadline;
    }

    /**
     * Makes the head of the queue the one waiter that waits with a timer, until
     * {@code wake} (the next moment time alone could let a call go,
     * {@link Long#MAX_VALUE} for none), and signals it if the head or the time changed.
     */
    private void scheduleWake(long wake) {
        Waiter head = head();
        if (head != this.timerOwner || wake != this.nextWake) {
            this.timerOwner = head;
            this.nextWake = wake;
            if (head != null && head.condition != null) {
                head.condition.signal();
            }
        }
    }

    /** The waiting calls per priority, for the limiter's state. */
    LimiterState.Queued queued() {
        return new LimiterState.Queued(this.queuedByPriority[Priority.REALTIME.ordinal()],
                this.queuedByPriority[Priority.NORMAL.ordinal()], this.queuedByPriority[Priority.BATCH.ordinal()]);
    }

    /**
     * What last held a waiting call back, to name the right failure when it times out.
     */
    enum Blocker {

        QUEUE, MODEL, TENANT

    }

    /**
     * A call waiting in the queue, and what became of it: the limiter sets its permit or
     * its failure and signals it, or the call gives up when its deadline passes. A call
     * waits on its thread's {@link #condition}, or holds no thread: its {@link #future}
     * is completed through the limiter's {@link AsyncAdmission}.
     */
    static final class Waiter {

        /** What the call asks: its input estimate may fall while it waits. */
        AdmissionRequest request;

        final @Nullable BucketSet tenant;

        final Duration maxWait;

        final long sequence;

        final long rank;

        final long deadline;

        /** What the call's thread waits on; {@code null} for a call without a thread. */
        final @Nullable Condition condition;

        /** Completes a call without a thread; {@code null} for one with a thread. */
        final @Nullable AsyncAdmission async;

        /**
         * The admission of a call without a thread; {@code null} for one with a thread.
         */
        final @Nullable CompletableFuture<Permit> future;

        /** A call without a thread: its deadline's timer, while it waits. */
        TimeSource.@Nullable Scheduled deadlineTimer;

        /**
         * A call without a thread given up by its caller while it took its buckets: it
         * leaves the queue once the store answers.
         */
        boolean abandoned;

        @Nullable LimiterPermit permit;

        @Nullable LlmThrottleException failure;

        Blocker blockedBy = Blocker.QUEUE;

        /**
         * While the call takes its buckets from a shared store (on its own thread,
         * without the lock): what it takes; {@code null} otherwise.
         */
        AdmissionGate.@Nullable Demand taking;

        /**
         * Until when a shared store's last answer holds the call back
         * ({@link #retryBlocker} says what lacked), while {@link AdmissionGate}'s buckets
         * have not changed since ({@link #retryGeneration}).
         */
        long retryAt = Long.MIN_VALUE;

        long retryGeneration;

        Blocker retryBlocker = Blocker.MODEL;

        /**
         * Whether the shared store's last answer lets the call go only after its
         * deadline.
         */
        boolean retryBeyondDeadline;

        /**
         * Whether the buckets would hold enough for the call only after its deadline: it
         * will time out unless tokens come back first, so it holds nobody back.
         */
        boolean beyondDeadline;

        private Waiter(AdmissionRequest request, @Nullable BucketSet tenant, Duration maxWait, long sequence, long rank,
                long deadline, @Nullable Condition condition, @Nullable AsyncAdmission async) {
            this.request = request;
            this.tenant = tenant;
            this.maxWait = maxWait;
            this.sequence = sequence;
            this.rank = rank;
            this.deadline = deadline;
            this.condition = condition;
            this.async = async;
            this.future = (async != null) ? new CompletableFuture<>() : null;
        }

        /** Hands the call its permit and wakes it; the queue then takes it out. */
        void admit(LimiterPermit permit) {
            this.permit = permit;
            wake();
        }

        /** Fails the call and wakes it; the queue then takes it out. */
        void fail(LlmThrottleException failure) {
            this.failure = failure;
            wake();
        }

        /** Wakes the call to take its buckets from the shared store ({@link #taking}). */
        void takeTurn() {
            if (this.condition != null) {
                this.condition.signal();
            }
            else if (this.async != null) {
                this.async.take(this);
            }
        }

        private void wake() {
            if (this.condition != null) {
                this.condition.signal();
            }
            else if (this.async != null) {
                this.async.completed(this);
            }
        }

    }

}
