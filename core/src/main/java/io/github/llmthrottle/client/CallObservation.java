package io.github.llmthrottle.client;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;

import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.client.ThrottleObserver.CallOutcome;
import io.github.llmthrottle.observation.LlmThrottleAttemptObservationContext;
import io.github.llmthrottle.observation.LlmThrottleCallObservationContext;
import io.github.llmthrottle.observation.LlmThrottleObservations;
import io.github.llmthrottle.provider.Usage;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The observations of one call: the {@code llm.throttle.call} observation, and each
 * attempt's {@code llm.throttle.attempt} nested in it from its admission on, so that a
 * trace shows the queue wait, each attempt and each back-off sleep apart. What the call
 * and its attempts learn (status, request id, usage, outcome, rejection) is written into
 * their contexts here, and nothing is built when nobody listens.
 */
final class CallObservation {

    private final CallContext call;

    /** Where the client's calls and attempts are observed. */
    private final LlmThrottleObservations observations;

    /** The call's observation: {@link Observation#NOOP} when nobody listens. */
    private Observation observation = Observation.NOOP;

    /** What the observation knows, or {@code null} when nobody listens. */
    private @Nullable LlmThrottleCallObservationContext observed;

    /** When the last attempt ended, on the client's clock: the back-off starts there. */
    private long lastAttemptEnded = -1;

    CallObservation(CallContext call, LlmThrottleObservations observations) {
        this.call = call;
        this.observations = observations;
    }

    /** Starts the call's observation, when someone listens. */
    void start() {
        if (!this.observations.isObserving()) {
            return;
        }
        Observation observation = this.observations
            .call(() -> new LlmThrottleCallObservationContext(this.call.clientName(), this.call.model().name,
                    this.call.admission().priority(), this.call.streaming()));
        if (!observation.isNoop()) {
            this.observed = (LlmThrottleCallObservationContext) observation.getContext();
            this.observation = observation.start();
        }
    }

    /**
     * Makes the call's observation current.
     * @return the scope to close
     */
    Observation.Scope openScope() {
        return this.observation.openScope();
    }

    /**
     * The call was refused.
     * @param rejection why
     */
    void rejected(RejectionReason rejection) {
        LlmThrottleCallObservationContext observed = this.observed;
        if (observed != null) {
            observed.setRejection(rejection);
        }
    }

    /**
     * Ends the call's observation.
     * @param outcome how the call ended
     * @param error the failure, built only when someone listens, or {@code null} when it
     * succeeded
     */
    void stop(CallOutcome outcome, @Nullable Supplier<Throwable> error) {
        LlmThrottleCallObservationContext observed = this.observed;
        if (observed != null) {
            observed.setOutcome(outcome.tag());
            if (error != null) {
                this.observation.error(error.get());
            }
        }
        this.observation.stop();
    }

    /**
     * The observation of an attempt that was just admitted, started, with the back-off
     * slept since the previous attempt.
     * @param number the attempt's number, from 1
     * @param queueWait how long the attempt waited for admission
     * @param queuedAt when it began to wait
     * @return the attempt's observation
     */
    Attempt startAttempt(int number, Duration queueWait, long queuedAt) {
        if (!this.observations.isObserving()) {
            return new Attempt(this, Observation.NOOP);
        }
        LlmThrottleCallObservationContext observed = this.observed;
        if (observed != null) {
            observed.setAttempts(number);
        }
        Duration backOff = (this.lastAttemptEnded >= 0) ? Duration.ofNanos(queuedAt - this.lastAttemptEnded) : null;
        return new Attempt(this, this.observations
            .attempt(() -> new LlmThrottleAttemptObservationContext(this.call.clientName(), this.call.model().name,
                    this.call.admission().priority(), number, queueWait, backOff), this.observation)
            .start());
    }

    /**
     * The observation of one attempt: {@link Observation#NOOP} when nobody listens, or
     * before the attempt is admitted.
     */
    static final class Attempt {

        /** The observation of an attempt not admitted (yet). */
        static final Attempt NONE = new Attempt(null, Observation.NOOP);

        private final @Nullable CallObservation call;

        private final Observation observation;

        private Attempt(@Nullable CallObservation call, Observation observation) {
            this.call = call;
            this.observation = observation;
        }

        private @Nullable LlmThrottleAttemptObservationContext observed() {
            return this.observation.isNoop() ? null
                    : (LlmThrottleAttemptObservationContext) this.observation.getContext();
        }

        /**
         * Makes the attempt's observation current.
         * @return the scope to close
         */
        Observation.Scope openScope() {
            return this.observation.openScope();
        }

        /**
         * The attempt failed.
         * @param error why
         */
        void error(Throwable error) {
            this.observation.error(error);
        }

        /**
         * The attempt's answer was an error, built only when someone listens.
         * @param error the error
         */
        void error(Supplier<Throwable> error) {
            if (observed() != null) {
                this.observation.error(error.get());
            }
        }

        /**
         * A response came, for the attempt's and the call's observations.
         * @param status its status
         * @param requestId the provider's request id, or {@code null}
         */
        void response(int status, @Nullable String requestId) {
            LlmThrottleAttemptObservationContext observed = observed();
            if (observed != null) {
                observed.setStatus(status);
                observed.setRequestId(requestId);
            }
            LlmThrottleCallObservationContext call = (this.call != null) ? this.call.observed : null;
            if (call != null && requestId != null) {
                call.setRequestId(requestId);
            }
        }

        /**
         * How the attempt ended.
         * @param outcome the outcome's tag
         * @param status the response's status, or {@code 0}
         */
        void outcome(String outcome, int status) {
            LlmThrottleAttemptObservationContext observed = observed();
            if (observed != null) {
                observed.setOutcome(outcome);
                observed.setStatus(status);
            }
        }

        /**
         * The provider counted the call's tokens, for the attempt's and the call's
         * observations.
         * @param usage the tokens
         */
        void usage(Usage usage) {
            LlmThrottleAttemptObservationContext observed = observed();
            if (observed != null) {
                observed.setUsage(usage);
            }
            LlmThrottleCallObservationContext call = (this.call != null) ? this.call.observed : null;
            if (call != null) {
                call.setUsage(usage);
            }
        }

        /**
         * Ends the attempt's observation; the next attempt's back-off starts now.
         */
        void stop() {
            this.observation.stop();
            if (this.call != null) {
                this.call.lastAttemptEnded = this.call.call.pipeline().time().nanoTime();
            }
        }

        /**
         * Ends the observation of an attempt that ended with its stream.
         * @param status the response's status
         * @param errorType the type of the error event inside the stream, or {@code null}
         * @return the failure the error event stands for, or {@code null} when there was
         * none or nobody listens
         */
        @Nullable Throwable streamEnded(int status, @Nullable String errorType) {
            Throwable error = null;
            if (errorType != null && !this.observation.isNoop()) {
                error = new ProviderResponseException(status,
                        ("error event in the stream: " + errorType).getBytes(StandardCharsets.UTF_8));
                this.observation.error(error);
            }
            this.observation.stop();
            return error;
        }

    }

}
