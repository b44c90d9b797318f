package io.github.llmthrottle.routing;

import java.time.Duration;
import java.util.List;

import io.github.llmthrottle.ContextWindowExceededException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.ThrottleContext;
import org.jspecify.annotations.Nullable;

/**
 * One invocation's way through the candidates of a {@link ModelRouter}, one step at a
 * time: {@link #next()} gives the context of the next candidate to invoke (after skipping
 * and reporting those refused before the call, as {@link ModelRouter#route} does),
 * {@link #failed(Throwable)} says whether what that candidate's invocation failed with
 * moves on to the next one. {@link ModelRouter#route} is the loop over these steps; an
 * invocation that returns before its calls are made (a {@code CompletableFuture}, a
 * reactive publisher) takes each step when what it returned completed.
 * <p>
 * Not thread-safe: the steps of one route must happen one after the other (each after the
 * previous one's result is known, which is what chaining on a future or a publisher
 * guarantees), though not necessarily on the same thread.
 */
public final class Route {

    private final ModelRouter router;

    private final List<RouteCandidate> candidates;

    private final Priority priority;

    private final @Nullable String tenant;

    private final @Nullable Duration maxWait;

    private final Duration admissionWait;

    private int next;

    private @Nullable RouteCandidate invoked;

    private @Nullable LlmThrottleException failure;

    private @Nullable Throwable thrown;

    private @Nullable ContextWindowExceededException tooLarge;

    Route(ModelRouter router, List<RouteCandidate> candidates, Priority priority, @Nullable String tenant,
            @Nullable Duration maxWait, Duration admissionWait) {
        this.router = router;
        this.candidates = candidates;
        this.priority = priority;
        this.tenant = tenant;
        this.maxWait = maxWait;
        this.admissionWait = admissionWait;
    }

    /**
     * The context to invoke the next candidate with. A candidate whose circuit lets no
     * call through, that could not admit a typical call within the max-wait, or whose
     * context window is smaller than the invocation's request is skipped and reported as
     * rejected.
     * @return the context naming the candidate's client and model, or {@code null} when
     * no candidate is left ({@link #failure()} and {@link #thrown()} then say why)
     */
    public @Nullable ThrottleContext next() {
        this.invoked = null;
        while (this.next < this.candidates.size()) {
            int attempt = this.next++;
            RouteCandidate candidate = this.candidates.get(attempt);
            String client = this.router.clientOf(candidate);
            LlmThrottleException refusal = this.router.refusal(candidate, this.priority, this.tenant,
                    this.admissionWait, this.tooLarge);
            if (refusal == null) {
                this.invoked = candidate;
                return new ThrottleContext(client, candidate.model(), this.priority, this.tenant, attempt,
                        this.maxWait);
            }
            candidate.rejected(refusal);
            movedOn(candidate, refusal, refusal);
        }
        return null;
    }

    /**
     * Records how the candidate last given by {@link #next()} failed.
     * @param ex what its invocation threw, or what it returned failed with
     * @return {@code true} when {@code ex} is a throttling failure of the candidate's
     * client (or a refusal the router moves on after) and the next candidate is to be
     * tried; {@code false} when {@code ex} must reach the caller unchanged
     */
    public boolean failed(Throwable ex) {
        RouteCandidate candidate = this.invoked;
        if (candidate == null) {
            throw new IllegalStateException("No candidate of this route is being invoked");
        }
        this.invoked = null;
        String client = this.router.clientOf(candidate);
        LlmThrottleException throttling = this.router.throttlingFailure(ex, client);
        if (throttling == null) {
            throttling = this.router.refusedFailure(ex, client, candidate.model());
        }
        if (throttling == null) {
            return false;
        }
        if (throttling instanceof ContextWindowExceededException exceeded) {
            this.tooLarge = exceeded;
        }
        movedOn(candidate, throttling, ex);
        return true;
    }

    /**
     * The last throttling failure, once {@link #next()} found no candidate left: what a
     * recovery (the annotation's fallback method) is given.
     * @return the failure
     */
    public LlmThrottleException failure() {
        LlmThrottleException failure = this.failure;
        if (failure == null) {
            throw notFinished();
        }
        return failure;
    }

    /**
     * What to rethrow when no candidate is left and there is no recovery: the last
     * exception as it was thrown (the synthetic rejection when the last candidate was
     * skipped).
     * @return the exception
     */
    public Throwable thrown() {
        Throwable thrown = this.thrown;
        if (thrown == null) {
            throw notFinished();
        }
        return thrown;
    }

    private void movedOn(RouteCandidate candidate, LlmThrottleException failure, Throwable thrown) {
        this.failure = failure;
        this.thrown = thrown;
        if (this.next < this.candidates.size()) {
            RouteCandidate following = this.candidates.get(this.next);
            String client = this.router.clientOf(candidate);
            String to = this.router.clientOf(following).equals(client) ? following.model()
                    : this.router.clientOf(following) + ModelReference.SEPARATOR + following.model();
            candidate.routedAway(to, failure);
        }
    }

    private IllegalStateException notFinished() {
        return new IllegalStateException("No candidate of " + this.candidates + " failed yet");
    }

}
