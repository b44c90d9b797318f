package io.github.llmthrottle.observation;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.provider.Usage;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What the {@code llm.throttle.call} observation knows of one logical call: its client,
 * model and priority from the start, and as the call goes on, the outcome, the provider's
 * request id, the tokens and the number of attempts. The call pipeline fills it in; a
 * {@link LlmThrottleCallObservationConvention} reads it.
 */
public class LlmThrottleCallObservationContext extends Observation.Context {

    private final String client;

    private final String model;

    private final Priority priority;

    private final boolean streaming;

    private volatile @Nullable String outcome;

    private volatile @Nullable RejectionReason rejection;

    private volatile @Nullable String requestId;

    private volatile @Nullable Usage usage;

    private volatile int attempts;

    /**
     * Creates the context of a call.
     * @param client the configured client
     * @param model the model the call is for
     * @param priority the call's priority
     * @param streaming whether the call asks for a stream of events
     */
    public LlmThrottleCallObservationContext(String client, String model, Priority priority, boolean streaming) {
        this.client = client;
        this.model = model;
        this.priority = priority;
        this.streaming = streaming;
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
     * Whether the call asks for a stream of events (its observation ends with the
     * stream).
     * @return {@code true} for a streamed call
     */
    public boolean isStreaming() {
        return this.streaming;
    }

    /**
     * How the call ended, as the {@code outcome} tag of {@code llm.calls} (a streamed
     * call whose stream ends with an error event is {@code failed}).
     * @return {@code success}, {@code failed} or {@code rejected}; {@code null} while the
     * call runs
     */
    public @Nullable String getOutcome() {
        return this.outcome;
    }

    public void setOutcome(@Nullable String outcome) {
        this.outcome = outcome;
    }

    /**
     * Why the call was refused without (another) attempt.
     * @return the reason, or {@code null} when it was not refused
     */
    public @Nullable RejectionReason getRejection() {
        return this.rejection;
    }

    public void setRejection(@Nullable RejectionReason rejection) {
        this.rejection = rejection;
    }

    /**
     * The provider's request id of the last response.
     * @return the request id, or {@code null} when no response carried one
     */
    public @Nullable String getRequestId() {
        return this.requestId;
    }

    public void setRequestId(@Nullable String requestId) {
        this.requestId = requestId;
    }

    /**
     * The tokens the provider counted for the call.
     * @return the usage, or {@code null} when the provider reported none
     */
    public @Nullable Usage getUsage() {
        return this.usage;
    }

    public void setUsage(@Nullable Usage usage) {
        this.usage = usage;
    }

    /**
     * How many attempts the call made so far.
     * @return the number of attempts sent
     */
    public int getAttempts() {
        return this.attempts;
    }

    public void setAttempts(int attempts) {
        this.attempts = attempts;
    }

}
