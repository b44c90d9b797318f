package io.github.llmthrottle.limit;

/**
 * Admission control of one client and model: a call waits here, in priority order, until the
 * model's (and its tenant's) buckets and the concurrency limit let it through.
 */
public interface Admission {

    /**
     * Waits until the request is admitted.
     * @param request what the attempt needs
     * @return the permit, to be released when the attempt ends
     * @throws InterruptedException if the caller is interrupted while waiting (it leaves the queue)
     * @throws io.github.llmthrottle.LlmThrottleException if the call is rejected (queue full,
     * max-wait, tenant quota)
     */
    Permit acquire(AdmissionRequest request) throws InterruptedException;

}
