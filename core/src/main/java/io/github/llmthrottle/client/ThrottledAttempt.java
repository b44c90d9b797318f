package io.github.llmthrottle.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.limit.QuotaReservation;
import io.github.llmthrottle.limit.RefillWait;
import io.github.llmthrottle.observation.LlmThrottleAttemptObservationContext;
import io.github.llmthrottle.provider.Headers;
import io.github.llmthrottle.provider.LogText;
import io.github.llmthrottle.provider.RateLimitHeaders;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.retry.Cancellation;
import io.github.llmthrottle.retry.Classification;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.retry.ResponseBodyReadException;
import io.github.llmthrottle.retry.RetryAfter;
import io.github.llmthrottle.retry.RetryableResponseException;
import io.github.llmthrottle.routing.ModelCircuit;
import io.micrometer.observation.Observation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP attempt of a {@link ThrottledCall}: the circuit's permission (taken by the
 * call), admission, the exchange through the adapter, classification of the response,
 * calibration from its headers, the model-wide pause after a 429, and settlement of the
 * tokens from the JSON body or the stream's events. Its outcome goes to the circuit and
 * to every observer in one place ({@link #ended}); a streamed attempt ends when its
 * stream does, as what its error event says. From its admission on, the attempt is an
 * {@code llm.throttle.attempt} observation (ended with its stream, for a stream).
 *
 * @param <R> the adapter's response type
 */
final class ThrottledAttempt<R extends ProviderResponse> {

    private static final Log logger = LogFactory.getLog(ThrottledAttempt.class);

    private static final int MAX_ERROR_BODY = 1024 * 1024;

    private static final int MAX_EXACT_BODY = 64 * 1024 * 1024;

    private static final String EVENT_STREAM = "text/event-stream";

    private final ThrottledCall<R> call;

    private final ModelCircuit.Permission circuit;

    /**
     * The model the attempt is admitted, measured and calibrated as: a deployment's own.
     */
    private final ThrottledModel target;

    /**
     * Where the attempt goes, when it goes to a deployment; {@code null} as requested.
     */
    private final @Nullable ProviderTarget redirect;

    /** Which attempt of the call this is, from 1. */
    private final int number;

    /** This attempt's observation: {@link Observation#NOOP} when nobody listens. */
    private Observation observation = Observation.NOOP;

    /** Whether a stream took the circuit's permission along, to release when it ends. */
    private boolean handedOver;

    /**
     * Whether this attempt entered its prompt's prefixes in the client's prompt cache.
     */
    private boolean enteredCache;

    private @Nullable Permit permit;

    /** What the attempt took from its long-window quotas, once admitted. */
    private @Nullable QuotaReservation quota;

    private long sentNanos;

    ThrottledAttempt(ThrottledCall<R> call, ThrottledModel target, @Nullable ProviderTarget redirect,
            ModelCircuit.Permission circuit, int number) {
        this.call = call;
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

    ThrottledResponse<R> run() throws IOException {
        long queued = this.call.client.time.nanoTime();
        Permit permit = admit();
        this.permit = permit;
        // the provider writes the prompt's cache entry as it takes the call: calls
        // waiting with the same prompt now ask only for what follows it
        this.enteredCache = this.call.client.promptCache.sent(this.call.model.name, this.call.llmRequest);
        if (this.enteredCache) {
            this.target.limiter.demandsChanged();
        }
        this.sentNanos = this.call.client.time.nanoTime();
        Duration waited = Duration.ofNanos(this.sentNanos - queued);
        this.call.client.events.onAdmitted(clientName(), modelName(), this.call.admission.priority(), waited);
        this.observation = this.call.startAttemptObservation(this.number, waited, queued);
        try (Observation.Scope observing = this.observation.openScope()) {
            return exchange(permit);
        }
        catch (RetryableResponseException ex) {
            this.observation.error(ex.getFailure());
            throw ex;
        }
        catch (IOException | RuntimeException | Error ex) {
            this.observation.error(ex);
            throw ex;
        }
        finally {
            if (!this.handedOver) {
                this.observation.stop();
                this.call.attemptEnded();
            }
        }
    }

    private ThrottledResponse<R> exchange(Permit permit) throws IOException {
        R response;
        try {
            response = (this.redirect != null) ? this.call.exchange.execute(this.redirect)
                    : this.call.exchange.execute();
        }
        catch (IOException ex) {
            notWrittenToCache();
            permit.settle(this.call.admission.inputTokens(), 0);
            if (Cancellation.isCancellation(ex)) {
                // the caller gave up: not the provider's failure, nor a capacity
                // signal; the circuit's permission is released without an outcome
                permit.release(Permit.Outcome.IGNORED);
                observeOutcome("cancelled", 0);
                throw ex;
            }
            permit.release(Permit.Outcome.DROPPED);
            ended(Outcome.IO_ERROR, 0);
            throw ex;
        }
        catch (RuntimeException | Error ex) {
            permit.release(Permit.Outcome.IGNORED);
            throw ex;
        }
        try {
            return handle(response);
        }
        catch (IOException | RuntimeException | Error ex) {
            permit.release(Permit.Outcome.IGNORED);
            response.close();
            throw ex;
        }
    }

    private Permit admit() throws IOException {
        // the long-window quotas first: a call whose quota is used up fails at once
        // instead of queueing; a model's deployments share the model's quota
        AdmissionRequest request = this.call.admissionNow();
        QuotaReservation quota = this.call.client.quotas.reserve(clientName(), this.call.model.name, request.tenant(),
                request.inputTokens() + request.outputTokens());
        boolean admitted = false;
        try {
            Permit permit = quota.around(this.target.limiter.acquire(request));
            this.quota = quota;
            admitted = true;
            return permit;
        }
        catch (LlmThrottleException ex) {
            throw this.call.admissionFailure(request, ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException(
                    "Interrupted while waiting for admission to client '" + clientName() + "', model '" + modelName()
                            + "'");
            interrupted.initCause(ex);
            throw interrupted;
        }
        finally {
            if (!admitted) {
                quota.cancel();
            }
        }
    }

    /** The attempt's one event: its outcome to the circuit and to every observer. */
    private void ended(Outcome outcome, int status) {
        this.circuit.record(outcome);
        this.call.client.events.onAttempt(clientName(), modelName(), outcome, status, this.call.since(this.sentNanos));
        observeOutcome(outcome.metricTag(), status);
    }

    private @Nullable LlmThrottleAttemptObservationContext observed() {
        return this.observation.isNoop() ? null : (LlmThrottleAttemptObservationContext) this.observation.getContext();
    }

    private void observeOutcome(String outcome, int status) {
        LlmThrottleAttemptObservationContext observed = observed();
        if (observed != null) {
            observed.setOutcome(outcome);
            observed.setStatus(status);
        }
    }

    private ThrottledResponse<R> handle(R response) throws IOException {
        int status = response.status();
        Headers headers = response.headers();
        Permit permit = permit();
        String requestId = requestId(headers);
        LlmThrottleAttemptObservationContext observed = observed();
        if (observed != null) {
            observed.setStatus(status);
            observed.setRequestId(requestId);
        }
        this.call.observeResponse(requestId);
        if (status / 100 == 2) {
            if (this.quota != null) {
                // billed from here on, whatever follows (an error event, a broken body)
                this.quota.answered();
            }
            RateLimitSnapshot rateLimits = RateLimitHeaders.parse(settings().provider(), headers,
                    this.call.client.time.instant());
            if (this.call.streaming || EVENT_STREAM.equals(headers.mediaType())) {
                // written before the answer: the provider still counts what the call
                // reserved, as the buckets here do until the stream ends
                calibrate(rateLimits);
                return stream(response, status, headers, permit);
            }
            ended(Outcome.SUCCESS, status);
            byte[] body;
            try (response; InputStream in = response.body()) {
                body = readBody(in, headers.contentLength());
            }
            catch (IOException ex) {
                // unsettled: the buckets keep the whole reservation
                calibrate(rateLimits);
                if (Cancellation.isCancellation(ex)) {
                    throw ex;
                }
                throw new ResponseBodyReadException(
                        "The body of a " + status + " response of client '" + clientName() + "', model '" + modelName()
                                + "' failed while read; not retried, the call" + " was answered (and billed)",
                        ex);
            }
            Usage usage = this.call.client.usageReader.read(body);
            if (usage != null) {
                usage = sane(usage);
                // written once the provider had settled the call (see Permit)
                permit.settle(usage.inputTokens(), usage.outputTokens(), rateLimits);
                recordUsage(usage);
            }
            else {
                calibrate(rateLimits);
            }
            permit.release(Permit.Outcome.SUCCESS);
            return ThrottledResponse.buffered(response, body);
        }
        notWrittenToCache();
        byte[] errorBody;
        try (response; InputStream in = response.body()) {
            errorBody = in.readNBytes(MAX_ERROR_BODY);
        }
        Classification classification = this.call.client.classifier.classify(status, headers, errorBody);
        ended(classification.outcome(), status);
        Duration serverWait = classification.serverWait();
        if (classification.outcome() == Outcome.RATE_LIMITED && serverWait != null) {
            pauseModel(untilTheCallFits(classification, serverWait), "HTTP " + status, requestId);
        }
        // an error's headers count nothing of this call: they are applied once the
        // unused reservation is given back; a 429's remaining 0 then empties the
        // bucket, whatever drift let the call go
        if (classification.retryable()) {
            permit.settle(this.call.admission.inputTokens(), 0, classification.rateLimits());
            permit.release(isCapacitySignal(classification) ? Permit.Outcome.DROPPED : Permit.Outcome.IGNORED);
            throw new RetryableResponseException(classification, response.toException(errorBody), requestId);
        }
        permit.settle(0, 0, classification.rateLimits());
        permit.release(Permit.Outcome.IGNORED);
        if (observed != null) {
            this.observation.error(response.toException(errorBody));
        }
        return ThrottledResponse.buffered(response, errorBody);
    }

    /**
     * A 2xx stream: passed through as it arrives; its attempt ends (for the events and
     * the circuit, whose permission it takes along) when the stream does, as what its
     * error event says if it has one.
     */
    private ThrottledResponse<R> stream(R response, int status, Headers headers, Permit permit) {
        this.handedOver = true;
        ThrottledClient client = this.call.client;
        StreamSettlement settlement = new StreamSettlement(response, client.usageReader, (outcome) -> {
            try {
                Usage usage = outcome.usage();
                if (usage != null) {
                    usage = sane(usage);
                    permit.settle(usage.inputTokens(), usage.outputTokens());
                    recordUsage(usage);
                }
                Outcome attemptOutcome = streamOutcome(outcome.errorType());
                ended(attemptOutcome, status);
                if (attemptOutcome == Outcome.RATE_LIMITED) {
                    // a rate limit inside a 200 stream (Azure sends
                    // retry-after with it): pause the model too
                    RetryAfter serverWait = RetryAfter.fromHeaders(headers, client.time.clock());
                    if (serverWait != null) {
                        pauseModel(serverWait.duration(), "a rate-limit event in a 200 stream", requestId(headers));
                    }
                }
                permit.release((attemptOutcome != Outcome.SUCCESS) ? Permit.Outcome.DROPPED
                        : outcome.complete() ? Permit.Outcome.SUCCESS : Permit.Outcome.IGNORED);
            }
            finally {
                this.circuit.release();
                streamEnded(status, outcome.errorType());
            }
        }, this.call::firstChunk, client.time::nanoTime).trackedIn(client.openStreams);
        return ThrottledResponse.streamed(response, settlement);
    }

    /** The attempt, and so its call, ended with their stream. */
    private void streamEnded(int status, @Nullable String errorType) {
        Throwable error = null;
        if (errorType != null && !this.observation.isNoop()) {
            error = new ProviderResponseException(status,
                    ("error event in the stream: " + errorType).getBytes(StandardCharsets.UTF_8));
            this.observation.error(error);
        }
        this.observation.stop();
        this.call.streamEnded(errorType, error);
    }

    private Permit permit() {
        Permit permit = this.permit;
        if (permit == null) {
            throw new IllegalStateException("No permit: the attempt was not admitted");
        }
        return permit;
    }

    /**
     * Reads a whole body, into an array of exactly its {@code Content-Length} when the
     * provider sent one (as JSON responses have), instead of growing buffers and copying.
     */
    static byte[] readBody(InputStream in, long contentLength) throws IOException {
        if (contentLength < 0 || contentLength > MAX_EXACT_BODY) {
            return in.readAllBytes();
        }
        byte[] body = in.readNBytes((int) contentLength);
        if (body.length < contentLength) {
            return body;
        }
        int next = in.read();
        if (next < 0) {
            return body;
        }
        // more than announced (a decoded body, or a wrong header): keep all of it
        byte[] rest = in.readAllBytes();
        byte[] all = new byte[body.length + 1 + rest.length];
        System.arraycopy(body, 0, all, 0, body.length);
        all[body.length] = (byte) next;
        System.arraycopy(rest, 0, all, body.length + 1, rest.length);
        return all;
    }

    /** What an error event inside a 200 stream means for the attempt. */
    private static Outcome streamOutcome(@Nullable String errorType) {
        if (errorType == null) {
            return Outcome.SUCCESS;
        }
        if (errorType.startsWith("rate_limit")) {
            return Outcome.RATE_LIMITED;
        }
        if (errorType.startsWith("overloaded") || errorType.equals("server_is_overloaded")) {
            return Outcome.OVERLOADED;
        }
        return Outcome.SERVER_ERROR;
    }

    private static boolean isCapacitySignal(Classification classification) {
        return switch (classification.outcome()) {
            case RATE_LIMITED, OVERLOADED, TIMEOUT -> true;
            default -> classification.status() == 503;
        };
    }

    /**
     * How long the model pauses after a 429: the server's explicit wait, or, when its
     * only hint is when the exhausted dimension is full again, until the refused call
     * fits ({@link RefillWait}).
     */
    private Duration untilTheCallFits(Classification classification, Duration serverWait) {
        RetryAfter retryAfter = classification.retryAfter();
        RateLimitSnapshot rateLimits = classification.rateLimits();
        if (retryAfter == null || retryAfter.source() != RetryAfter.Source.RESET_HEADER || rateLimits == null) {
            return serverWait;
        }
        AdmissionRequest request = this.call.admission;
        Duration fits = RefillWait.untilFits(rateLimits, this.target.limiter.limits(), request.inputTokens(),
                request.outputTokens(), this.call.client.time.clock().instant());
        return (fits != null && fits.compareTo(serverWait) < 0) ? fits : serverWait;
    }

    /**
     * Holds every call of the model for the server's wait after a 429, but never longer
     * than {@code max-retry-after}: a longer wait (a reset a day away, a garbage value)
     * fails the calls that would sleep it anyway, and must not stall the model for
     * longer.
     */
    private void pauseModel(Duration serverWait, String signal, @Nullable String requestId) {
        Duration cap = this.call.client.settings.retry().maxRetryAfter();
        Duration pause = (serverWait.compareTo(cap) > 0) ? cap : serverWait;
        this.target.limiter.pause(pause);
        logger.info(LogText.escape("Client '" + clientName() + "', model '" + modelName() + "': rate limited (" + signal
                + ((requestId != null) ? ", request id " + requestId : "") + "); every call of "
                + ((this.target.deployment != null) ? "this deployment" : "the model") + " waits " + pause
                + ((pause != serverWait) ? " (the server asked for " + serverWait + ")" : "")));
    }

    /**
     * The provider's request id of a response: {@code request-id} (Anthropic) or
     * {@code x-request-id}.
     */
    static @Nullable String requestId(Headers headers) {
        String id = headers.first("request-id");
        return (id != null) ? id : headers.first("x-request-id");
    }

    /** The provider refused the call or did not answer: it wrote nothing to its cache. */
    private void notWrittenToCache() {
        if (this.enteredCache) {
            this.enteredCache = false;
            this.call.client.promptCache.refused(this.call.model.name, this.call.llmRequest);
        }
    }

    private void calibrate(@Nullable RateLimitSnapshot snapshot) {
        if (snapshot != null && !snapshot.isEmpty()) {
            this.target.limiter.calibrate(snapshot);
        }
    }

    private Usage sane(Usage usage) {
        return UsageBounds.sane(usage, this.target.limiter.limits(), clientName(), modelName());
    }

    private void recordUsage(Usage usage) {
        LlmThrottleAttemptObservationContext observed = observed();
        if (observed != null) {
            observed.setUsage(usage);
        }
        this.call.observeUsage(usage);
        this.call.client.events.onUsage(this.call.client.getName(), this.target.name, usage);
        this.call.client.promptCache.settled(this.call.model.name, this.call.llmRequest,
                usage.cacheReadTokens() > 0 || usage.cacheWriteTokens() > 0);
        // the whole prompt, cache reads included, measures its text
        try {
            this.call.client.estimator.observe(this.call.model.name, this.call.llmRequest, usage.promptTokens());
        }
        catch (RuntimeException ex) {
            // an application's estimator must not keep the call from settling
            logger.warn(LogText.escape("TokenEstimator.observe failed for client '" + clientName() + "', model '"
                    + modelName() + "'; the call is settled all the same"), ex);
        }
    }

    private ClientSettings settings() {
        return this.call.client.settings;
    }

    private String clientName() {
        return this.call.client.getName();
    }

    private String modelName() {
        return this.target.name;
    }

}
