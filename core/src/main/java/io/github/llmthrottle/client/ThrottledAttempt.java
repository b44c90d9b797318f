package io.github.llmthrottle.client;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.provider.Headers;
import io.github.llmthrottle.provider.RateLimitHeaders;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.retry.Cancellation;
import io.github.llmthrottle.retry.Classification;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.retry.ResponseBodyReadException;
import io.github.llmthrottle.retry.RetryableResponseException;
import io.github.llmthrottle.routing.ModelCircuit;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP attempt of a {@link ThrottledCall}, and what is done with each of its steps,
 * whether it blocks ({@link BlockingAttempt}) or not ({@link AsyncCall}): the circuit's
 * permission (taken by the call), admission, the exchange through the adapter,
 * classification of the response, calibration from its headers, the model-wide pause
 * after a 429 ({@link ModelPause}), and settlement of the tokens from the JSON body or
 * the stream's events ({@link AttemptTokens}). Its outcome goes to the circuit and to
 * every observer in one place ({@link #ended}); a streamed attempt ends when its stream
 * does, as what its error event says. From its admission on, the attempt is an
 * {@code llm.throttle.attempt} observation (ended with its stream, for a stream).
 *
 * @param <R> the adapter's response type
 */
final class ThrottledAttempt<R extends ProviderResponse> {

    private final ThrottledCall<R> call;

    private final CallContext context;

    private final ModelCircuit.Permission circuit;

    /** The model the attempt is admitted, measured and calibrated as: a deployment's. */
    final ThrottledModel target;

    /** Where the attempt goes, when to a deployment; {@code null} as requested. */
    final @Nullable ProviderTarget redirect;

    /** Which attempt of the call this is, from 1. */
    private final int number;

    /** This attempt's observation: none until it is admitted. */
    private CallObservation.Attempt observation = CallObservation.Attempt.NONE;

    /** Whether a stream took the circuit's permission along, to release when it ends. */
    private boolean handedOver;

    private long sentNanos;

    /** Completes once the pause a 429 of this attempt started holds on every instance. */
    private CompletableFuture<Void> sharedPause = ModelPause.NONE;

    /** The rate-limit headers of a 2xx answer. */
    private @Nullable RateLimitSnapshot rateLimits;

    ThrottledAttempt(ThrottledCall<R> call, ThrottledModel target, @Nullable ProviderTarget redirect,
            ModelCircuit.Permission circuit, int number) {
        this.call = call;
        this.context = call.context();
        this.target = target;
        this.redirect = redirect;
        this.circuit = circuit;
        this.number = number;
    }

    /** Releases the circuit's permission without an outcome, unless a stream has it. */
    void releaseCircuitUnlessHandedOver() {
        if (!this.handedOver) {
            this.circuit.release();
        }
    }

    /**
     * The attempt was admitted: the prompt enters the cache, and its observation starts.
     * @param tokens the admitted attempt's tokens
     * @param queued when it joined the queue, on the client's clock
     */
    void admitted(AttemptTokens tokens, long queued) {
        tokens.enterCache();
        this.sentNanos = this.context.pipeline().time().nanoTime();
        Duration waited = Duration.ofNanos(this.sentNanos - queued);
        this.context.events().onAdmitted(clientName(), modelName(), this.context.admission().priority(), waited);
        this.observation = this.call.observation.startAttempt(this.number, waited, queued);
    }

    /** The admitted attempt failed with {@code failure}: its observation says so. */
    void failed(Throwable failure) {
        this.observation.error((failure instanceof RetryableResponseException ex) ? ex.getFailure() : failure);
    }

    CallContext context() {
        return this.context;
    }

    /** The pause of its 429: done once a shared store holds it, within its timeout. */
    CompletableFuture<Void> sharedPause() {
        return this.sharedPause;
    }

    Observation.Scope openScope() {
        return this.observation.openScope();
    }

    /** Ends the attempt's observation, unless a stream took it along. */
    void finish() {
        if (!this.handedOver) {
            this.observation.stop();
        }
    }

    /**
     * The exchange ended with an I/O error, or was cancelled by the caller.
     * @param tokens the attempt's tokens, given back
     * @param failure the error
     * @param cancelled whether the caller gave up: not the provider's failure, nor a
     * capacity signal; the circuit's permission is released without an outcome
     * @return the failure to throw
     */
    <T extends Throwable> T notSent(AttemptTokens tokens, T failure, boolean cancelled) {
        tokens.notWrittenToCache();
        Permit permit = tokens.permit();
        permit.settle(this.context.admission().inputTokens(), 0);
        permit.release(cancelled ? Permit.Outcome.IGNORED : Permit.Outcome.DROPPED);
        if (cancelled) {
            this.observation.outcome("cancelled", 0);
        }
        else {
            ended(Outcome.IO_ERROR, 0);
        }
        return failure;
    }

    /** The attempt's one event: its outcome to the circuit and to every observer. */
    private void ended(Outcome outcome, int status) {
        this.circuit.record(outcome);
        this.context.events().onAttempt(clientName(), modelName(), outcome, status, this.context.since(this.sentNanos));
        this.observation.outcome(outcome.metricTag(), status);
    }

    /**
     * The provider's answer arrived, its body unread: a 2xx stream is handed back at once
     * (see {@link #stream}); a 2xx JSON answer counts as a success, its body to be read
     * whole for {@link #answered}; an error's body is read, up to
     * {@link ResponseBodies#MAX_ERROR_BODY}, for {@link #refused}.
     * @param response the response
     * @param tokens the attempt's tokens
     * @return the streamed response, or {@code null} when the body is to be read
     */
    @Nullable ThrottledResponse<R> received(R response, AttemptTokens tokens) {
        int status = response.status();
        Headers headers = response.headers();
        this.observation.response(status, ResponseBodies.requestId(headers));
        if (status / 100 != 2) {
            tokens.notWrittenToCache();
            return null;
        }
        // billed from here on, whatever follows (an error event, a broken body)
        tokens.answered();
        this.rateLimits = RateLimitHeaders.parse(this.context.pipeline().settings().provider(), headers,
                this.context.pipeline().time().instant());
        if (this.context.streaming() || headers.isStream()) {
            // written before the answer: the provider still counts what the call
            // reserved, as the buckets here do until the stream ends
            tokens.calibrate(this.rateLimits);
            return stream(response, status, headers, tokens);
        }
        ended(Outcome.SUCCESS, status);
        return null;
    }

    /**
     * The body of a 2xx answer could not be read: the buckets keep the whole reservation.
     * @param response the response
     * @param tokens the attempt's tokens
     * @param failure the error
     * @return the failure to throw
     */
    IOException bodyFailed(R response, AttemptTokens tokens, IOException failure) {
        tokens.calibrate(this.rateLimits);
        if (Cancellation.isCancellation(failure)) {
            return failure;
        }
        return new ResponseBodyReadException(
                "The body of a " + response.status() + " response of client '" + clientName() + "', model '"
                        + modelName() + "' failed while read; not retried, the call was answered (and billed)",
                failure);
    }

    /**
     * A 2xx answer's whole body: its tokens settled.
     * @param response the response
     * @param tokens the attempt's tokens
     * @param body the body
     * @return the response to hand back
     */
    ThrottledResponse<R> answered(R response, AttemptTokens tokens, byte[] body) {
        Usage usage = this.context.pipeline().usageReader().read(body);
        if (usage != null) {
            // written once the provider had settled the call (see Permit)
            tokens.settle(usage, this.rateLimits, this.observation);
        }
        else {
            tokens.calibrate(this.rateLimits);
        }
        tokens.permit().release(Permit.Outcome.SUCCESS);
        return ThrottledResponse.buffered(response, body);
    }

    /**
     * An error answer: classified, the model paused after a 429, the reservation given
     * back; thrown for the retry engine to decide on when it is retryable.
     * @param response the response
     * @param tokens the attempt's tokens
     * @param errorBody the start of its body
     * @return the response to hand back, when it is not retried
     * @throws RetryableResponseException when it may be retried
     */
    ThrottledResponse<R> refused(R response, AttemptTokens tokens, byte[] errorBody) {
        int status = response.status();
        Headers headers = response.headers();
        Permit permit = tokens.permit();
        String requestId = ResponseBodies.requestId(headers);
        Classification classification = this.context.pipeline().classifier().classify(status, headers, errorBody);
        // first of all: every call of the model waits from here on, here and elsewhere
        this.sharedPause = ModelPause.afterRefusal(this.context, this.target, classification, status, requestId);
        ended(classification.outcome(), status);
        // an error's headers count nothing of this call: they are applied once the
        // unused reservation is given back; a 429's remaining 0 then empties the
        // bucket, whatever drift let the call go
        if (classification.retryable()) {
            permit.settle(this.context.admission().inputTokens(), 0, classification.rateLimits());
            permit.release(classification.isCapacitySignal() ? Permit.Outcome.DROPPED : Permit.Outcome.IGNORED);
            throw new RetryableResponseException(classification, response.toException(errorBody), requestId);
        }
        permit.settle(0, 0, classification.rateLimits());
        permit.release(Permit.Outcome.IGNORED);
        this.observation.error(() -> response.toException(errorBody));
        return ThrottledResponse.buffered(response, errorBody);
    }

    /**
     * A 2xx stream (of events, or Ollama's NDJSON): passed through as it arrives; its
     * attempt ends (for the events and the circuit, whose permission it takes along) when
     * the stream does, as what its error event says if it has one.
     */
    private ThrottledResponse<R> stream(R response, int status, Headers headers, AttemptTokens tokens) {
        this.handedOver = true;
        ClientPipeline pipeline = this.context.pipeline();
        StreamSettlement settlement = new StreamSettlement(response, pipeline.usageReader(),
                (outcome) -> streamEnded(outcome, status, headers, tokens), this.call::firstChunk,
                pipeline.time()::nanoTime)
            .trackedIn(pipeline.openStreams());
        return ThrottledResponse.streamed(response, settlement);
    }

    /** The attempt, and so its call, ended with their stream. */
    private void streamEnded(StreamSettlement.Outcome outcome, int status, Headers headers, AttemptTokens tokens) {
        try {
            Usage usage = outcome.usage();
            if (usage != null) {
                tokens.settleStreamed(usage, this.observation);
            }
            Outcome attemptOutcome = ErrorEnvelope.outcomeOf(outcome.errorType());
            if (attemptOutcome == Outcome.RATE_LIMITED) {
                ModelPause.afterStreamedRateLimit(this.context, this.target, headers);
            }
            ended(attemptOutcome, status);
            tokens.permit()
                .release((attemptOutcome != Outcome.SUCCESS) ? Permit.Outcome.DROPPED
                        : outcome.complete() ? Permit.Outcome.SUCCESS : Permit.Outcome.IGNORED);
        }
        finally {
            this.circuit.release();
            Throwable error = this.observation.streamEnded(status, outcome.errorType());
            this.call.streamEnded(outcome.errorType(), error);
        }
    }

    private String clientName() {
        return this.context.clientName();
    }

    private String modelName() {
        return this.target.name;
    }

}
