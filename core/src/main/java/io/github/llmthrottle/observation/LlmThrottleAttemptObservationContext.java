package io.github.llmthrottle.observation;

import java.time.Duration;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.provider.Usage;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What the {@code llm.throttle.attempt} observation knows of one HTTP attempt: its
 * client, model, priority, number, the wait for admission before it and the back-off
 * sleep before that, and once it has a response, the outcome, status, the provider's
 * request id and the tokens. The call pipeline fills it in; a
 * {@link LlmThrottleAttemptObservationConvention} reads it.
 */
public class LlmThrottleAttemptObservationContext extends Observation.Context {

    private final String client;

    private final String model;

    private final Priority priority;

    private final int attempt;

    private final Duration queueWait;

    private final @Nullable Duration backOff;

    private volatile @Nullable String outcome;

    private volatile int status;

    private volatile @Nullable String requestId;

    private volatile @Nullable Usage usage;

    /**
     * Creates the context of an attempt.
     * @param client the configured client
     * @param model the model the call is for
     * @param priority the call's priority
     * @param attempt which attempt of its call this is, from 1
     * @param queueWait how long the attempt waited for admission
     * @param backOff how long the call slept after the previous attempt, or {@code null}
     * for the first attempt
     */
    public LlmThrottleAttemptObservationContext(String client, String model, Priority priority, int attempt,
            Duration queueWait, @Nullable Duration backOff) {
        this.client = client;
        this.model = model;
        this.priority = priority;
        this.attempt = attempt;
        this.queueWait = queueWait;
        this.backOff = backOff;
    }

    public String getClient() {
        return this.client;
    }

    public String getModel() {
        return this.model;
    }

    public Priority getPriority() {
        return this.priority;
    }

    /**
     * Which attempt of its call this is.
     * @return the attempt number, from 1
     */
    public int getAttempt() {
        return this.attempt;
    }

    /**
     * How long the attempt waited for admission (local limits, the model's pause,
     * concurrency) before it was sent.
     * @return the wait
     */
    public Duration getQueueWait() {
        return this.queueWait;
    }

    /**
     * How long the call slept between the previous attempt and this one's admission.
     * @return the back-off, or {@code null} for the first attempt
     */
    public @Nullable Duration getBackOff() {
        return this.backOff;
    }

    /**
     * How the attempt ended, as the {@code outcome} tag of {@code llm.requests}, or
     * {@code cancelled}.
     * @return the outcome, or {@code null} while the attempt runs (or when it ended with
     * an unexpected exception)
     */
    public @Nullable String getOutcome() {
        return this.outcome;
    }

    public void setOutcome(@Nullable String outcome) {
        this.outcome = outcome;
    }

    /**
     * The HTTP status of the response.
     * @return the status, or 0 when there was no response
     */
    public int getStatus() {
        return this.status;
    }

    public void setStatus(int status) {
        this.status = status;
    }

    /**
     * The provider's request id of the response.
     * @return the request id, or {@code null} when the response carried none
     */
    public @Nullable String getRequestId() {
        return this.requestId;
    }

    public void setRequestId(@Nullable String requestId) {
        this.requestId = requestId;
    }

    /**
     * The tokens the provider counted for the attempt.
     * @return the usage, or {@code null} when the provider reported none
     */
    public @Nullable Usage getUsage() {
        return this.usage;
    }

    public void setUsage(@Nullable Usage usage) {
        this.usage = usage;
    }

}
