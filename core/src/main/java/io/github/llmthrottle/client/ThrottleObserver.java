package io.github.llmthrottle.client;

import java.math.BigDecimal;
import java.time.Duration;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.retry.Classification;
import io.github.llmthrottle.retry.RetryListener;
import org.jspecify.annotations.Nullable;

/**
 * Observes what throttled clients do: admissions, attempts, retries, rejections, token
 * usage and whole calls. This is the one bookkeeping channel: the endpoint's totals,
 * metrics, health and logs are all observers of the same events; register a bean of this
 * type to add one. Called on the calling thread (a stream's last events, on the thread
 * that reads or closes it); implementations must be fast and must not throw (an exception
 * is logged and ignored). The events of a model call go to the observer's {@link #forCall
 * view} of it, which knows its caller.
 */
public interface ThrottleObserver extends RetryListener {

    /**
     * A call was admitted after waiting in the queue.
     * @param client the client name
     * @param model the model name
     * @param priority the call's priority
     * @param waited how long it waited for admission
     */
    default void onAdmitted(String client, String model, Priority priority, Duration waited) {
    }

    /**
     * One HTTP attempt ended with a response or an I/O error. A streamed response ends
     * when its stream does, and an error event inside a 200 stream makes it end as what
     * the event says (for example {@link Classification.Outcome#RATE_LIMITED} with status
     * 200).
     * @param client the client name
     * @param model the model name
     * @param outcome how it ended ({@link Classification.Outcome#metricTag()} is the
     * metric tag)
     * @param status the HTTP status, or 0 for an I/O error
     * @param duration how long the attempt took, admission excluded (for a stream, until
     * it ended)
     */
    default void onAttempt(String client, String model, Classification.Outcome outcome, int status, Duration duration) {
    }

    /**
     * A call was refused without (another) attempt.
     * @param client the client name
     * @param model the model name
     * @param rejection why
     * @param exception the exception the caller gets
     */
    default void onRejected(String client, String model, RejectionReason rejection, LlmThrottleException exception) {
    }

    /**
     * The provider reported the tokens of a call.
     * @param client the client name
     * @param model the model name
     * @param usage the tokens counted
     */
    default void onUsage(String client, String model, Usage usage) {
    }

    /**
     * What the tokens of a call cost, for a model with a price ({@code price.*}), just
     * after {@link #onUsage}.
     * @param client the client name
     * @param model the model name
     * @param cost the cost in the configured currency ({@code llm.throttle.currency})
     */
    default void onCost(String client, String model, BigDecimal cost) {
    }

    /**
     * A logical call (one request through the RestClient, retries included) ended.
     * @param client the client name
     * @param model the model name
     * @param outcome how it ended
     * @param duration how long it took, queueing and retries included
     */
    default void onCall(String client, String model, CallOutcome outcome, Duration duration) {
    }

    /**
     * A logical call is over for its caller: when its response was returned (just after
     * {@link #onCall}), or for a streamed response when its stream ended (read to the
     * end, closed, or expired). The GenAI {@code gen_ai.client.operation.duration} is
     * this duration.
     * @param client the client name
     * @param model the model name
     * @param duration from the call's start to its end (for a stream, to its last chunk),
     * queueing and retries included
     * @param errorType why it failed, or {@code null} when it succeeded: the HTTP status
     * of an error response (such as {@code 400}), the type of an error event inside a
     * stream (such as {@code overloaded_error}), or the fully qualified class name of the
     * exception the caller got
     */
    default void onCallCompleted(String client, String model, Duration duration, @Nullable String errorType) {
    }

    /**
     * The first bytes of a streamed response reached the caller (GenAI's time to first
     * chunk).
     * @param client the client name
     * @param model the model name
     * @param sinceCallStart how long after the call's start, queueing and retries
     * included
     */
    default void onFirstChunk(String client, String model, Duration sinceCallStart) {
    }

    /**
     * A {@code @Throttled} invocation was routed from one model to another.
     * @param client the client name
     * @param from the model that could not take the call
     * @param to the model tried next
     * @param cause why
     */
    default void onFallback(String client, String from, String to, Throwable cause) {
    }

    /**
     * A model that is not configured was forgotten (the least recently used beyond the
     * bound of names tracked): drop what was kept for it.
     * @param client the client name
     * @param model the model name
     */
    default void onModelForgotten(String client, String model) {
    }

    /**
     * The observer of one model call's events: this observer, or a view of it that tells
     * them apart by the call's caller (such as a metric tagged with its tenant). Asked
     * once per call, before its first event; every event of the call, on whatever thread
     * it happens, goes to what it returns. The caller comes with the request, not from a
     * thread-local: an observer reads it here.
     * @param caller the call's caller, its tenant the one the {@link TenantResolver}
     * resolved when the caller named none
     * @return the observer of the call's events, {@code this} when it keeps no view
     */
    default ThrottleObserver forCall(Caller caller) {
        return this;
    }

    /** How a logical call ended ({@code llm.calls} outcome tag). */
    enum CallOutcome {

        /** A 2xx response was returned. */
        SUCCESS("success"),

        /**
         * A non-retryable error response, retries exhausted, an I/O error or any other
         * exception.
         */
        FAILED("failed"),

        /** Refused by admission or an open circuit. */
        REJECTED("rejected");

        private final String tag;

        CallOutcome(String tag) {
            this.tag = tag;
        }

        public String tag() {
            return this.tag;
        }

    }

}
