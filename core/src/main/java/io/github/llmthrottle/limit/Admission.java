package io.github.llmthrottle.limit;

/**
 * Admission control of one client and model: a call waits here, in priority order, until
 * the model's (and its tenant's) buckets and the concurrency limit let it through.
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

}
