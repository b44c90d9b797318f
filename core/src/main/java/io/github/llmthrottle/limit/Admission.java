package io.github.llmthrottle.limit;

import java.util.concurrent.CompletableFuture;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.QueueFullException;
import io.github.llmthrottle.TenantQuotaExceededException;

/**
 * Admission control of one client and model: a call waits here, in priority order, until
 * the model's (and its tenant's) buckets and the concurrency limit let it through.
 *
 * <p>
 * A call joins the queue (or fails with {@link QueueFullException} if it cannot be
 * admitted at once and finds the queue full, or its tenant already holding half of it).
 * The head of the queue is admitted as soon as the model's buckets hold what it needs, a
 * concurrency slot is free, and no pause holds; nobody behind a call blocked by the
 * model's resources goes ahead of it. A call of a tenant with {@link TenantLimits} also
 * needs its tenant's buckets; a call held back only by those keeps its place, but calls
 * of other tenants go ahead of it. An admitted attempt takes what it needs from every
 * bucket at once, or nothing ({@link Reservation}). An attempt that needs more than a
 * whole bucket fails at once with {@link DemandExceedsLimitException} (or
 * {@link TenantQuotaExceededException} for a tenant bucket): it could never fit; a
 * waiting call fails the same way when the limits are lowered below what it needs. A call
 * that is interrupted, cancelled or whose wait is over leaves the queue, giving back a
 * permit granted to it in the meantime; when its tenant's buckets were what held it, a
 * timeout fails with {@link TenantQuotaExceededException}, otherwise with
 * {@link AdmissionTimeoutException}.
 */
public interface Admission {

    /**
     * Waits until the request is admitted.
     * @param request what the attempt needs
     * @return the permit, to be released when the attempt ends
     * @throws InterruptedException if the caller is interrupted while waiting: it leaves
     * the queue, nothing it reserved stays taken, and the thread's interrupt flag is left
     * set so that callers further up see it too
     * @throws io.github.llmthrottle.LlmThrottleException if the call is rejected: queue
     * full ({@link io.github.llmthrottle.QueueFullException}), not admitted within
     * max-wait ({@link io.github.llmthrottle.AdmissionTimeoutException}), its tenant's
     * limits ({@link io.github.llmthrottle.TenantQuotaExceededException}), or larger than
     * a whole bucket ({@link DemandExceedsLimitException}, at once)
     */
    Permit acquire(AdmissionRequest request) throws InterruptedException;

    /**
     * Enqueues the request without holding the caller's thread: the same queue, order and
     * limits as {@link #acquire}, completed when the request is admitted. What depends on
     * it runs on the thread that admits it (a releasing call or the time source's timer
     * thread): it must not block, or must move to an executor of its own.
     * @param request what the attempt needs
     * @return the permit once admitted, or the {@code LlmThrottleException} that
     * {@link #acquire} would throw; cancelling it (or completing it otherwise) takes the
     * call out of the queue and gives back a permit granted in the meantime
     */
    CompletableFuture<Permit> acquireAsync(AdmissionRequest request);

}
