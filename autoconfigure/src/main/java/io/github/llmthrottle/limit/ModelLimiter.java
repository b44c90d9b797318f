package io.github.llmthrottle.limit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import com.netflix.concurrency.limits.limit.AIMDLimit;
import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.QueueFullException;
import io.github.llmthrottle.SharedStoreUnavailableException;
import io.github.llmthrottle.TenantQuotaExceededException;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.time.Nanos;
import io.github.llmthrottle.time.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Admission control of one client and model: its buckets (requests, input tokens, output tokens,
 * and a combined token bucket when the provider only reports that), its tenants' buckets, the
 * adaptive concurrency limit, the pause after a 429, and the bounded priority queue in front of
 * them all.
 *
 * <h2>Queue</h2> Calls wait in one queue per client and model, bounded by {@code queueCapacity}
 * over all priorities (a call that cannot be admitted at once and finds the queue full fails with
 * {@link QueueFullException}). The queue is ordered by <em>virtual arrival time</em>: the arrival
 * time plus {@link #PRIORITY_STEP} for {@code NORMAL} and twice that for {@code BATCH}, then by
 * arrival. So priorities are strict among calls that arrived within one step of each other, FIFO
 * holds within a priority, and waiting ages a call: a {@code BATCH} call that has waited more than
 * two steps (60 s) is ahead of a {@code REALTIME} call arriving now, and never starves. The head
 * of the queue is admitted as soon as the model's buckets hold what it needs, a concurrency slot
 * is free, and no pause holds; nobody behind a call blocked by the model's resources goes ahead of
 * it (a small call does not overtake a large one forever).
 *
 * <h2>Tenants</h2> A call of a tenant with {@link TenantLimits} also needs its tenant's buckets.
 * When a waiting call is blocked only by its own tenant's buckets (the model could admit it), it
 * keeps its place but later calls of <em>other</em> tenants (or without tenant) that the model and
 * their tenants can admit go ahead of it; later calls of the same tenant do not, so each tenant
 * stays FIFO. A call that times out while its tenant's buckets were what held it fails with
 * {@link TenantQuotaExceededException}, otherwise with {@link AdmissionTimeoutException}.
 *
 * <h2>Reservation</h2> An attempt takes one request, its estimated input tokens and its
 * {@code max_tokens} of output tokens from every bucket at once, or nothing.
 * {@link Permit#settle(long, long)} refunds what it did not use and debits what it used above
 * the estimate, letting the bucket go negative (the provider counted those tokens too, so the next
 * calls must wait for them). An attempt that needs more than a whole bucket fails at once with
 * {@link DemandExceedsLimitException} (or {@link TenantQuotaExceededException} for a tenant
 * bucket): it could never fit.
 *
 * <h2>Calibration</h2> {@link #calibrate(RateLimitSnapshot)} applies the provider's headers: a
 * {@code -limit} lower than the configured limit (or reported where none is configured) governs
 * until {@link #updateLimits(ModelLimits)}; a {@code -remaining} lower than the local bucket pulls
 * the bucket down to it. The provider's numbers never raise a bucket or a limit. Tokens are
 * compared with a slack of 500 when the provider's value is a multiple of 1000 (Anthropic rounds
 * token remaining values to the nearest thousand), and the remaining value is aged by the refill
 * since the response was observed. The rule is local = min(local, serverRemaining): the
 * provider's remaining already includes the reservations of every call it has seen start, so
 * subtracting the local in-flight reservations would count those twice; calls admitted locally
 * that the provider has not seen yet are briefly forgotten, and the next response corrects that.
 * The combined {@code tokens} headers (OpenAI TPM) become a {@link Dimension#TOKENS} bucket that
 * each attempt draws input plus output tokens from, but only when the provider reports no
 * separate input and output limits: Anthropic's {@code tokens} headers repeat the most
 * restrictive of its separate limits and would only double-charge.
 *
 * <h2>Pause</h2> {@link #pause(Duration)} holds every call of the model until the server's time.
 * When it ends, waiting calls are admitted one at a time, spaced by 60 s / requests-per-minute
 * (between 10 ms and 1 s; 100 ms without a request limit), until the queue has drained.
 *
 * <h2>Concurrency</h2> With {@code maxConcurrency} set, a Netflix {@link AIMDLimit} (initial
 * limit min(maxConcurrency, 20)) caps the calls in flight: a {@code DROPPED} release shrinks it,
 * a {@code SUCCESS} release grows it, {@code IGNORED} leaves it. Calls waiting for a slot wait in
 * the queue.
 *
 * <p>Waiting happens only in the injected {@link TimeSource}'s
 * {@link TimeSource#await(Condition, long) await}, and waits and deadlines run on its monotonic
 * {@link TimeSource#nanoTime() nanoTime()}; instants (the end of a pause, the time a response was
 * observed) are converted at the edge. Thread-safe; calls never wait while holding anything but
 * this limiter's {@link ReentrantLock} (released while waiting).
 */
public final class ModelLimiter implements Admission {

    /** How much later than its arrival a call of each lower priority is ranked. */
    public static final Duration PRIORITY_STEP = Duration.ofSeconds(30);

    private static final long MINUTE_NANOS = TimeUnit.MINUTES.toNanos(1);

    private static final long ROUNDING_SLACK = 500;

    private static final long RACE_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final int INITIAL_CONCURRENCY = 20;

    private final String client;

    private final String model;

    private final int queueCapacity;

    private final Duration defaultMaxWait;

    private final Function<String, @Nullable TenantLimits> tenantLimits;

    private final BucketStore store;

    private final TimeSource timeSource;

    private final ReentrantLock lock = new ReentrantLock();

    // Everything below is guarded by lock.

    private ModelLimits limits;

    private final Map<Dimension, Long> serverLimits = new EnumMap<>(Dimension.class);

    private final BucketSet buckets;

    private final Map<String, BucketSet> tenantBuckets = new HashMap<>();

    private @Nullable RateLimitSnapshot lastSnapshot;

    private long pausedUntil = Long.MIN_VALUE;

    private boolean rampingUp;

    private long notBefore = Long.MIN_VALUE;

    private int inFlight;

    private @Nullable AIMDLimit concurrency;

    private final TreeSet<Waiter> queue = new TreeSet<>(
            Comparator.comparingLong((Waiter waiter) -> waiter.rank).thenComparingLong((waiter) -> waiter.sequence));

    private final int[] queuedByPriority = new int[Priority.values().length];

    private long sequence;

    private @Nullable Waiter timerOwner;

    private long nextWake = Long.MAX_VALUE;

    /**
     * Creates the admission control of one client and model.
     * @param client the client name
     * @param model the model name
     * @param limits the configured limits
     * @param queueCapacity most calls waiting at once, all priorities together
     * @param defaultMaxWait longest wait of a request that does not say
     * @param tenantLimits the limits of a tenant, {@code null} for none
     * @param store where the buckets live
     * @param timeSource time of the queue and how waiting calls wait (the store's buckets should
     * use the same)
     */
    public ModelLimiter(String client, String model, ModelLimits limits, int queueCapacity, Duration defaultMaxWait,
            Function<String, @Nullable TenantLimits> tenantLimits, BucketStore store, TimeSource timeSource) {
        if (queueCapacity < 0) {
            throw new IllegalArgumentException("queueCapacity must not be negative, was " + queueCapacity);
        }
        if (defaultMaxWait.isNegative()) {
            throw new IllegalArgumentException("defaultMaxWait must not be negative, was " + defaultMaxWait);
        }
        this.client = client;
        this.model = model;
        this.limits = limits;
        this.queueCapacity = queueCapacity;
        this.defaultMaxWait = defaultMaxWait;
        this.tenantLimits = tenantLimits;
        this.store = store;
        this.timeSource = timeSource;
        this.buckets = new BucketSet(store, client + ":" + model);
        applyLimits();
        this.concurrency = concurrencyLimit(limits.maxConcurrency(), null);
    }

    /**
     * The client this limiter belongs to.
     * @return the client name
     */
    public String client() {
        return this.client;
    }

    /**
     * The model this limiter belongs to.
     * @return the model name
     */
    public String model() {
        return this.model;
    }

    @Override
    public Permit acquire(AdmissionRequest request) throws InterruptedException {
        try {
            this.lock.lockInterruptibly();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw ex;
        }
        try {
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedException("Interrupted before admission to " + this.client + "/" + this.model);
            }
            long now = now();
            Duration maxWait = (request.maxWait() != null) ? request.maxWait() : this.defaultMaxWait;
            BucketSet tenant = tenantBuckets(request.tenant());
            rejectOversize(request, tenant);
            long deadline = Nanos.saturatedAdd(now, Nanos.of(maxWait));
            if (this.pausedUntil > deadline) {
                throw new AdmissionTimeoutException(this.client, this.model, maxWait,
                        Duration.ofNanos(Nanos.saturatedSubtract(this.pausedUntil, now)));
            }
            Waiter waiter = new Waiter(request, tenant, maxWait, now, deadline);
            this.queue.add(waiter);
            this.queuedByPriority[request.priority().ordinal()]++;
            return awaitAdmission(waiter, now);
        }
        finally {
            this.lock.unlock();
        }
    }

    private Permit awaitAdmission(Waiter waiter, long arrival) throws InterruptedException {
        try {
            dispatch(arrival);
            if (waiter.permit == null && waiter.failure == null && this.queue.size() > this.queueCapacity) {
                leave(waiter);
                throw new QueueFullException(this.client, this.model, this.queueCapacity, null);
            }
            while (true) {
                if (waiter.permit != null) {
                    return waiter.permit;
                }
                if (waiter.failure != null) {
                    throw waiter.failure;
                }
                long now = now();
                if (now >= waiter.deadline) {
                    leave(waiter);
                    throw timeout(waiter, now);
                }
                long until = (waiter == this.timerOwner) ? Math.min(waiter.deadline, this.nextWake) : waiter.deadline;
                this.timeSource.await(waiter.condition, Math.max(Nanos.saturatedSubtract(until, now), 1));
                dispatch(now());
            }
        }
        catch (InterruptedException ex) {
            leave(waiter);
            // Callers up the stack (the interceptor, the annotation's aspect) decide what to do
            // about the interrupt: keep the flag so they see it too.
            Thread.currentThread().interrupt();
            throw ex;
        }
        catch (RuntimeException | Error ex) {
            leave(waiter);
            throw ex;
        }
    }

    /** Takes the waiter out of the queue, giving back a permit granted to it in the meantime. */
    private void leave(Waiter waiter) {
        if (this.queue.remove(waiter)) {
            this.queuedByPriority[waiter.request.priority().ordinal()]--;
        }
        LimiterPermit permit = waiter.permit;
        if (permit != null) {
            waiter.permit = null;
            permit.revoke();
        }
        dispatch(now());
    }

    private LlmThrottleException timeout(Waiter waiter, long now) {
        long wait = estimatedWaitNanos(waiter.request, waiter.tenant, now, false);
        Duration retryAfter = (wait > 0 && wait != Long.MAX_VALUE) ? Duration.ofNanos(wait) : null;
        if (waiter.blockedBy == Blocker.TENANT && waiter.request.tenant() != null) {
            return new TenantQuotaExceededException(this.client, this.model, waiter.request.tenant(), retryAfter);
        }
        return new AdmissionTimeoutException(this.client, this.model, waiter.maxWait, retryAfter);
    }

    private void rejectOversize(AdmissionRequest request, @Nullable BucketSet tenant) {
        LlmThrottleException failure = oversize(request.inputTokens(), request.outputTokens(), request.tenant(),
                tenant);
        if (failure != null) {
            throw failure;
        }
    }

    private @Nullable LlmThrottleException oversize(long input, long output, @Nullable String tenantName,
            @Nullable BucketSet tenant) {
        Dimension dimension = this.buckets.oversize(input, output);
        if (dimension != null) {
            TokenBucket bucket = this.buckets.get(dimension);
            return new DemandExceedsLimitException(this.client, this.model, dimension, dimension.cost(input, output),
                    (bucket != null) ? bucket.capacity() : 0);
        }
        if (tenant != null && tenantName != null && tenant.oversize(input, output) != null) {
            return new TenantQuotaExceededException(this.client, this.model, tenantName, null);
        }
        return null;
    }

    /**
     * Admits every waiter that can go now, in queue order, and works out when time alone will
     * let the next one go. Called with the lock held after every change of state.
     */
    private void dispatch(long now) {
        long wake = Long.MAX_VALUE;
        if (now < this.pausedUntil) {
            wake = this.pausedUntil;
            if (!this.queue.isEmpty()) {
                this.queue.first().blockedBy = Blocker.MODEL;
            }
        }
        else {
            Set<String> blockedTenants = null;
            Iterator<Waiter> iterator = this.queue.iterator();
            while (iterator.hasNext()) {
                Waiter waiter = iterator.next();
                AdmissionRequest request = waiter.request;
                if (blockedTenants != null && request.tenant() != null && blockedTenants.contains(request.tenant())) {
                    waiter.blockedBy = Blocker.TENANT;
                    continue;
                }
                LlmThrottleException failure = oversize(request.inputTokens(), request.outputTokens(), request.tenant(),
                        waiter.tenant);
                if (failure != null) {
                    // Limits were lowered while it waited: it can never fit now.
                    iterator.remove();
                    this.queuedByPriority[request.priority().ordinal()]--;
                    waiter.failure = failure;
                    waiter.condition.signal();
                    continue;
                }
                if (this.rampingUp && now < this.notBefore) {
                    waiter.blockedBy = Blocker.MODEL;
                    wake = Math.min(wake, this.notBefore);
                    break;
                }
                if (this.concurrency != null && this.inFlight >= this.concurrency.getLimit()) {
                    waiter.blockedBy = Blocker.MODEL;
                    break;
                }
                long modelWait = this.buckets.nanosToWait(request.inputTokens(), request.outputTokens());
                if (modelWait > 0) {
                    waiter.blockedBy = Blocker.MODEL;
                    wake = Math.min(wake, Nanos.saturatedAdd(now, modelWait));
                    break;
                }
                if (waiter.tenant != null && request.tenant() != null) {
                    long tenantWait = waiter.tenant.nanosToWait(request.inputTokens(), request.outputTokens());
                    if (tenantWait > 0) {
                        waiter.blockedBy = Blocker.TENANT;
                        wake = Math.min(wake, Nanos.saturatedAdd(now, tenantWait));
                        if (blockedTenants == null) {
                            blockedTenants = new HashSet<>();
                        }
                        blockedTenants.add(request.tenant());
                        continue;
                    }
                }
                List<BucketSet.Charge> charges;
                try {
                    charges = consume(request, waiter.tenant);
                }
                catch (BucketStoreUnavailableException ex) {
                    // The shared store is down and configured to reject (not to fall back).
                    iterator.remove();
                    this.queuedByPriority[request.priority().ordinal()]--;
                    waiter.failure = new SharedStoreUnavailableException(this.client, this.model, ex.getRetryAfter(),
                            ex);
                    waiter.condition.signal();
                    continue;
                }
                if (charges == null) {
                    // A shared store changed between estimate and consumption: try again shortly.
                    waiter.blockedBy = Blocker.MODEL;
                    wake = Math.min(wake, Nanos.saturatedAdd(now, RACE_RETRY_NANOS));
                    break;
                }
                iterator.remove();
                this.queuedByPriority[request.priority().ordinal()]--;
                this.inFlight++;
                waiter.permit = new LimiterPermit(request.inputTokens(), request.outputTokens(), charges, now,
                        this.inFlight);
                waiter.condition.signal();
                if (this.rampingUp) {
                    this.notBefore = Nanos.saturatedAdd(now, staggerNanos());
                }
            }
        }
        Waiter head = this.queue.isEmpty() ? null : this.queue.first();
        if (head == null && now >= this.pausedUntil) {
            this.rampingUp = false;
        }
        if (head != this.timerOwner || wake != this.nextWake) {
            this.timerOwner = head;
            this.nextWake = wake;
            if (head != null) {
                head.condition.signal();
            }
        }
    }

    private @Nullable List<BucketSet.Charge> consume(AdmissionRequest request, @Nullable BucketSet tenant) {
        List<BucketSet.Charge> charges = new ArrayList<>();
        if (!this.buckets.tryConsume(request.inputTokens(), request.outputTokens(), charges)) {
            return null;
        }
        if (tenant != null) {
            boolean consumed = false;
            try {
                consumed = tenant.tryConsume(request.inputTokens(), request.outputTokens(), charges);
            }
            finally {
                if (!consumed) {
                    BucketSet.rollback(charges, 0, request.inputTokens(), request.outputTokens());
                }
            }
            if (!consumed) {
                return null;
            }
        }
        return charges;
    }

    private long staggerNanos() {
        Long rpm = effectiveLimit(Dimension.REQUESTS);
        if (rpm == null) {
            return TimeUnit.MILLISECONDS.toNanos(100);
        }
        return Math.max(TimeUnit.MILLISECONDS.toNanos(10), Math.min(TimeUnit.SECONDS.toNanos(1), MINUTE_NANOS / rpm));
    }

    /**
     * Applies what the provider's rate-limit headers said (see the class description for the
     * rule): lower {@code -limit}s govern, lower {@code -remaining}s pull the buckets down.
     * @param snapshot the headers of one response
     */
    public void calibrate(RateLimitSnapshot snapshot) {
        calibrate(snapshot, false);
    }

    /**
     * Applies the rate-limit headers of a 429 (rate limited) response. A remaining value of 0 is
     * taken as exactly 0 rather than "somewhere below 500" (Anthropic rounds to the nearest
     * thousand): the provider has just said the call does not fit, so whatever the local bucket
     * still holds is drift (for example the transit time of the first call after the bucket was
     * full, during which the local bucket refilled and the provider's did not).
     * @param snapshot the headers of the 429 response
     */
    public void calibrateRejected(RateLimitSnapshot snapshot) {
        calibrate(snapshot, true);
    }

    private void calibrate(RateLimitSnapshot snapshot, boolean rejected) {
        this.lock.lock();
        try {
            long now = now();
            if (this.lastSnapshot == null || !snapshot.observedAt().isBefore(this.lastSnapshot.observedAt())) {
                this.lastSnapshot = snapshot;
            }
            boolean combinedOnly = snapshot.inputTokensLimit() == null && snapshot.inputTokensRemaining() == null
                    && snapshot.outputTokensLimit() == null && snapshot.outputTokensRemaining() == null;
            serverLimit(Dimension.REQUESTS, snapshot.requestsLimit());
            serverLimit(Dimension.INPUT_TOKENS, snapshot.inputTokensLimit());
            serverLimit(Dimension.OUTPUT_TOKENS, snapshot.outputTokensLimit());
            if (combinedOnly) {
                serverLimit(Dimension.TOKENS, snapshot.tokensLimit());
            }
            applyLimits();
            // The time since the provider answered, on the wall clock its date was read from.
            long elapsed = Math.max(0, Nanos.between(snapshot.observedAt(), this.timeSource.instant()));
            pullDown(Dimension.REQUESTS, snapshot.requestsRemaining(), elapsed, rejected);
            pullDown(Dimension.INPUT_TOKENS, snapshot.inputTokensRemaining(), elapsed, rejected);
            pullDown(Dimension.OUTPUT_TOKENS, snapshot.outputTokensRemaining(), elapsed, rejected);
            if (combinedOnly) {
                pullDown(Dimension.TOKENS, snapshot.tokensRemaining(), elapsed, rejected);
            }
            dispatch(now);
        }
        finally {
            this.lock.unlock();
        }
    }

    private void serverLimit(Dimension dimension, @Nullable Long limit) {
        if (limit != null && limit > 0) {
            this.serverLimits.put(dimension, limit);
        }
    }

    private void pullDown(Dimension dimension, @Nullable Long remaining, long elapsed, boolean rejected) {
        TokenBucket bucket = this.buckets.get(dimension);
        if (bucket == null || remaining == null) {
            return;
        }
        boolean exhausted = rejected && remaining <= 0;
        long slack = (!exhausted && dimension != Dimension.REQUESTS && remaining % 1000 == 0) ? ROUNDING_SLACK : 0;
        long refilled = (long) Math.min((double) bucket.capacity(), (double) bucket.capacity() * elapsed / MINUTE_NANOS);
        long target = Nanos.saturatedAdd(Nanos.saturatedAdd(Math.max(remaining, 0), slack), refilled);
        long available = bucket.availableTokens();
        if (available > target) {
            bucket.forceConsume(available - target);
        }
    }

    /**
     * Holds every call of this model for {@code serverWait} from now (after a 429).
     * @param serverWait how long the server asked to wait
     */
    public void pause(Duration serverWait) {
        this.lock.lock();
        try {
            long now = now();
            extendPause(Nanos.saturatedAdd(now, Nanos.of(serverWait)), now);
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Holds every call of this model until {@code until}; an earlier instant than a pause already
     * in force changes nothing. When the pause ends, waiting calls are admitted one at a time.
     * @param until when calls may go again
     */
    public void pauseUntil(Instant until) {
        this.lock.lock();
        try {
            long now = now();
            extendPause(Nanos.saturatedAdd(now, Nanos.between(this.timeSource.instant(), until)), now);
        }
        finally {
            this.lock.unlock();
        }
    }

    private void extendPause(long until, long now) {
        if (until > this.pausedUntil) {
            this.pausedUntil = until;
            this.rampingUp = true;
            this.notBefore = Long.MIN_VALUE;
        }
        dispatch(now);
    }

    /**
     * Replaces the configured limits; the next admission uses them. Limits learned from the
     * provider's headers are forgotten until the next response reports them again.
     * @param newLimits the new limits
     */
    public void updateLimits(ModelLimits newLimits) {
        this.lock.lock();
        try {
            Integer oldMax = this.limits.maxConcurrency();
            this.limits = newLimits;
            this.serverLimits.clear();
            applyLimits();
            if (!java.util.Objects.equals(oldMax, newLimits.maxConcurrency())) {
                this.concurrency = concurrencyLimit(newLimits.maxConcurrency(), this.concurrency);
            }
            dispatch(now());
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * The configured limits.
     * @return the limits
     */
    public ModelLimits limits() {
        this.lock.lock();
        try {
            return this.limits;
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * A snapshot of this limiter's state for the actuator.
     * @return the state now
     */
    public LimiterState state() {
        this.lock.lock();
        try {
            long now = now();
            ModelLimits effective = new ModelLimits(effectiveLimit(Dimension.REQUESTS),
                    effectiveLimit(Dimension.INPUT_TOKENS), effectiveLimit(Dimension.OUTPUT_TOKENS),
                    this.limits.maxConcurrency());
            LimiterState.Available available = new LimiterState.Available(available(Dimension.REQUESTS),
                    available(Dimension.INPUT_TOKENS), available(Dimension.OUTPUT_TOKENS), available(Dimension.TOKENS));
            Instant paused = (now < this.pausedUntil)
                    ? this.timeSource.instant().plusNanos(Nanos.saturatedSubtract(this.pausedUntil, now)) : null;
            LimiterState.Queued queued = new LimiterState.Queued(this.queuedByPriority[Priority.REALTIME.ordinal()],
                    this.queuedByPriority[Priority.NORMAL.ordinal()], this.queuedByPriority[Priority.BATCH.ordinal()]);
            return new LimiterState(this.client, this.model, this.limits, effective, effectiveLimit(Dimension.TOKENS),
                    available, this.lastSnapshot, paused, this.inFlight,
                    (this.concurrency != null) ? this.concurrency.getLimit() : null, queued);
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Estimates how long {@code request} would wait for admission if it were enqueued now,
     * without enqueuing it: for routing a call to a fallback model before it waits. Counts the
     * pause, the post-pause stagger, the model's and tenant's buckets and the demand of the calls
     * queued ahead of it; not the wait for a concurrency slot, which nothing predicts.
     * @param request the request
     * @return the estimated wait, or {@code null} if the request can never be admitted (it needs
     * more than a whole bucket)
     */
    public @Nullable Duration estimatedWait(AdmissionRequest request) {
        this.lock.lock();
        try {
            BucketSet tenant = tenantBuckets(request.tenant());
            if (oversize(request.inputTokens(), request.outputTokens(), request.tenant(), tenant) != null) {
                return null;
            }
            long wait = estimatedWaitNanos(request, tenant, now(), true);
            return (wait == Long.MAX_VALUE) ? null : Duration.ofNanos(wait);
        }
        finally {
            this.lock.unlock();
        }
    }

    private long estimatedWaitNanos(AdmissionRequest request, @Nullable BucketSet tenant, long now,
            boolean countQueue) {
        long wait = (this.pausedUntil > now) ? this.pausedUntil - now : 0;
        if (this.rampingUp && this.notBefore > now) {
            wait = Math.max(wait, this.notBefore - now);
        }
        long rank = Nanos.saturatedAdd(now, priorityOffset(request.priority()));
        Map<Dimension, Long> modelAhead = new EnumMap<>(Dimension.class);
        Map<Dimension, Long> tenantAhead = new EnumMap<>(Dimension.class);
        if (countQueue) {
            for (Waiter waiter : this.queue) {
                if (waiter.rank > rank) {
                    break;
                }
                add(modelAhead, waiter.request);
                if (request.tenant() != null && request.tenant().equals(waiter.request.tenant())) {
                    add(tenantAhead, waiter.request);
                }
            }
        }
        for (Dimension dimension : Dimension.values()) {
            long cost = dimension.cost(request.inputTokens(), request.outputTokens());
            wait = Math.max(wait, refillNanos(this.buckets.get(dimension),
                    Nanos.saturatedAdd(cost, modelAhead.getOrDefault(dimension, 0L))));
            if (tenant != null) {
                wait = Math.max(wait,
                        refillNanos(tenant.get(dimension), Nanos.saturatedAdd(cost, tenantAhead.getOrDefault(dimension, 0L))));
            }
        }
        return wait;
    }

    private static void add(Map<Dimension, Long> sums, AdmissionRequest request) {
        for (Dimension dimension : Dimension.values()) {
            sums.merge(dimension, dimension.cost(request.inputTokens(), request.outputTokens()),
                    Dimension::saturatedAdd);
        }
    }

    private static long refillNanos(@Nullable TokenBucket bucket, long needed) {
        if (bucket == null || needed <= 0) {
            return 0;
        }
        // Bucket4j knows the fractions of a token refilled so far; beyond one bucket's worth,
        // each further token takes one minute / limit.
        long capacity = bucket.capacity();
        long wait = bucket.nanosToWaitFor(Math.min(needed, capacity));
        if (needed > capacity) {
            double beyond = Math.ceil((double) (needed - capacity) * MINUTE_NANOS / capacity);
            wait = (beyond >= Long.MAX_VALUE) ? Long.MAX_VALUE - 1 : Nanos.saturatedAdd(wait, (long) beyond);
        }
        return Math.min(wait, Long.MAX_VALUE - 1);
    }

    private @Nullable Long available(Dimension dimension) {
        TokenBucket bucket = this.buckets.get(dimension);
        return (bucket != null) ? bucket.availableTokens() : null;
    }

    private @Nullable Long effectiveLimit(Dimension dimension) {
        Long configured = this.limits.perMinute(dimension);
        Long server = this.serverLimits.get(dimension);
        if (configured == null) {
            return server;
        }
        return (server != null) ? Math.min(configured, server) : configured;
    }

    private void applyLimits() {
        for (Dimension dimension : Dimension.values()) {
            this.buckets.limit(dimension, effectiveLimit(dimension));
        }
    }

    private @Nullable BucketSet tenantBuckets(@Nullable String tenant) {
        if (tenant == null) {
            return null;
        }
        BucketSet set = this.tenantBuckets.get(tenant);
        if (set == null) {
            set = new BucketSet(this.store, this.client + ":" + this.model + ":tenant:" + tenant);
            TenantLimits limits = this.tenantLimits.apply(tenant);
            if (limits != null) {
                for (Dimension dimension : Dimension.values()) {
                    set.limit(dimension, limits.perMinute(dimension));
                }
            }
            this.tenantBuckets.put(tenant, set);
        }
        return set;
    }

    private static @Nullable AIMDLimit concurrencyLimit(@Nullable Integer max, @Nullable AIMDLimit previous) {
        if (max == null) {
            return null;
        }
        int initial = (previous != null) ? previous.getLimit() : INITIAL_CONCURRENCY;
        return AIMDLimit.newBuilder()
            .initialLimit(Math.max(1, Math.min(max, initial)))
            .minLimit(1)
            .maxLimit(max)
            // LLM calls legitimately take minutes: latency alone must not shrink the limit.
            .timeout(1, TimeUnit.DAYS)
            .build();
    }

    private static long priorityOffset(Priority priority) {
        return priority.ordinal() * PRIORITY_STEP.toNanos();
    }

    private long now() {
        return this.timeSource.nanoTime();
    }

    @Override
    public String toString() {
        return "ModelLimiter[" + this.client + "/" + this.model + "]";
    }

    /** What last held a waiting call back, to name the right failure when it times out. */
    private enum Blocker {

        QUEUE, MODEL, TENANT

    }

    /** A call waiting in the queue. */
    private final class Waiter {

        final AdmissionRequest request;

        final @Nullable BucketSet tenant;

        final Duration maxWait;

        final long sequence;

        final long rank;

        final long deadline;

        final Condition condition;

        @Nullable LimiterPermit permit;

        @Nullable LlmThrottleException failure;

        Blocker blockedBy = Blocker.QUEUE;

        Waiter(AdmissionRequest request, @Nullable BucketSet tenant, Duration maxWait, long arrival, long deadline) {
            this.request = request;
            this.tenant = tenant;
            this.maxWait = maxWait;
            this.sequence = ModelLimiter.this.sequence++;
            this.rank = Nanos.saturatedAdd(arrival, priorityOffset(request.priority()));
            this.deadline = deadline;
            this.condition = ModelLimiter.this.lock.newCondition();
        }

    }

    /** An admitted attempt: what it took from which buckets, and its concurrency slot. */
    private final class LimiterPermit implements Permit {

        private final List<BucketSet.Charge> charges;

        private final long admittedAt;

        private final int inFlightAtAdmission;

        private long inputTokens;

        private long outputTokens;

        private boolean released;

        LimiterPermit(long inputTokens, long outputTokens, List<BucketSet.Charge> charges, long admittedAt,
                int inFlightAtAdmission) {
            this.inputTokens = inputTokens;
            this.outputTokens = outputTokens;
            this.charges = charges;
            this.admittedAt = admittedAt;
            this.inFlightAtAdmission = inFlightAtAdmission;
        }

        @Override
        public void settle(long inputTokens, long outputTokens) {
            if (inputTokens < 0 || outputTokens < 0) {
                throw new IllegalArgumentException(
                        "Token counts must not be negative: input=" + inputTokens + ", output=" + outputTokens);
            }
            ModelLimiter.this.lock.lock();
            try {
                for (BucketSet.Charge charge : this.charges) {
                    long delta = charge.dimension().cost(inputTokens, outputTokens)
                            - charge.dimension().cost(this.inputTokens, this.outputTokens);
                    if (delta < 0) {
                        charge.bucket().refund(-delta);
                    }
                    else {
                        charge.bucket().forceConsume(delta);
                    }
                }
                this.inputTokens = inputTokens;
                this.outputTokens = outputTokens;
                dispatch(now());
            }
            finally {
                ModelLimiter.this.lock.unlock();
            }
        }

        @Override
        public void release(Outcome outcome) {
            ModelLimiter.this.lock.lock();
            try {
                if (this.released) {
                    return;
                }
                this.released = true;
                ModelLimiter.this.inFlight--;
                long now = now();
                AIMDLimit limit = ModelLimiter.this.concurrency;
                if (limit != null && outcome != Outcome.IGNORED) {
                    limit.onSample(this.admittedAt, Math.max(0, now - this.admittedAt), this.inFlightAtAdmission,
                            outcome == Outcome.DROPPED);
                }
                dispatch(now);
            }
            finally {
                ModelLimiter.this.lock.unlock();
            }
        }

        /** Undoes the admission of an attempt that never went out. Called with the lock held. */
        void revoke() {
            if (this.released) {
                return;
            }
            this.released = true;
            ModelLimiter.this.inFlight--;
            for (BucketSet.Charge charge : this.charges) {
                charge.bucket().refund(charge.dimension().cost(this.inputTokens, this.outputTokens));
            }
        }

    }

}
