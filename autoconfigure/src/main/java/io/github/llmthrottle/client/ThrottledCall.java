package io.github.llmthrottle.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.time.Duration;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.client.ThrottleObserver.CallOutcome;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.provider.Headers;
import io.github.llmthrottle.provider.LlmRequest;
import io.github.llmthrottle.provider.RateLimitHeaders;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.retry.Classification;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.retry.ResponseBodyReadException;
import io.github.llmthrottle.retry.ResponseClassifier;
import io.github.llmthrottle.retry.RetryAfter;
import io.github.llmthrottle.retry.RetryableResponseException;
import io.github.llmthrottle.routing.ModelCircuit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One logical call through a {@link ThrottledClient}, from the request to its settled
 * response: the per-call record (model, context, admission request, the adapter's
 * exchange) and the steps of each attempt. In order: the circuit's permission, admission
 * (priority queue, buckets, concurrency, tenant), the HTTP attempt, classification of the
 * response, calibration from its headers, the model-wide pause after a 429, settlement of
 * the tokens from the JSON body or the stream's events, and the events every observer
 * (totals, metrics, health) sees. Retries are the
 * {@link io.github.llmthrottle.retry.RetryEngine}'s, around {@link #attempt(int)}.
 *
 * @param <R> the adapter's response type
 */
final class ThrottledCall<R extends ProviderResponse> {

    private static final Log logger = LogFactory.getLog(ThrottledCall.class);

    private static final int MAX_ERROR_BODY = 1024 * 1024;

    private static final int MAX_EXACT_BODY = 64 * 1024 * 1024;

    private static final String EVENT_STREAM = "text/event-stream";

    private static final ThrottleContext.Scope NO_SCOPE = () -> {
    };

    private final ThrottledClient client;

    private final ProviderExchange<R> exchange;

    private final LlmRequest llmRequest;

    private final ThrottledModel model;

    private final AdmissionRequest admission;

    private final ThrottleContext.@Nullable Scope scope;

    private final boolean streaming;

    private final long startNanos;

    ThrottledCall(ThrottledClient client, ProviderRequest request, ProviderExchange<R> exchange) {
        this.client = client;
        this.exchange = exchange;
        this.startNanos = client.time.nanoTime();
        this.llmRequest = client.requestReader.read(request.body());
        this.streaming = request.streaming() || this.llmRequest.stream();
        ThrottleContext context = ThrottleContext.current();
        if (context != null && !context.getClient().equals(client.getName())) {
            context = null;
        }
        String modelName = modelOf(context);
        this.model = client.model(modelName);
        long inputTokens = client.estimator.estimateInputTokens(modelName, this.llmRequest);
        Long maxOutput = this.llmRequest.maxOutputTokens();
        Priority priority = (context != null) ? context.getPriority() : Priority.NORMAL;
        String tenant = (context != null && context.getTenant() != null) ? context.getTenant()
                : client.tenantResolver.resolveTenant(request);
        Duration maxWait = (context != null) ? context.getMaxWait() : null;
        this.admission = new AdmissionRequest(priority, tenant, inputTokens, (maxOutput != null) ? maxOutput : 0,
                maxWait);
        // a tenant from the TenantResolver is made current for the call, so observers
        // (metrics) see it too
        this.scope = (context == null && tenant != null)
                ? ThrottleContext.open(new ThrottleContext(client.getName(), modelName, priority, tenant, 0, null))
                : null;
    }

    private String modelOf(@Nullable ThrottleContext context) {
        String requested = this.llmRequest.model();
        if (requested != null && !requested.isBlank()) {
            return requested;
        }
        if (context != null) {
            return context.getModel();
        }
        String defaultModel = this.client.settings.defaultModel();
        return (defaultModel != null) ? defaultModel : "default";
    }

    /**
     * Runs the call to its end: attempts and retries, then one call event.
     * @return the final response
     * @throws IOException an I/O error that is not retried, or an interrupt
     */
    ThrottledResponse<R> run() throws IOException {
        try (ThrottleContext.Scope scope = (this.scope != null) ? this.scope : NO_SCOPE) {
            // inside a @Throttled invocation no server wait beyond its max-wait is slept:
            // the call fails with RetryAfterTooLongException and the invocation moves on
            // to its next model
            ThrottledResponse<R> response = this.client.retryEngine.execute(this.client.getName(), this.model.name,
                    this.admission.maxWait(), this::attempt);
            callEnded((response.status() / 100 == 2) ? CallOutcome.SUCCESS : CallOutcome.FAILED);
            return response;
        }
        catch (LlmThrottleException ex) {
            logger
                .warn("Call to client '" + clientName() + "', model '" + modelName() + "' failed: " + ex.getMessage());
            RejectionReason rejection = ex.getRejectionReason();
            if (rejection != null) {
                this.client.events.onRejected(this.client.getName(), this.model.name, rejection, ex);
            }
            callEnded((rejection != null) ? CallOutcome.REJECTED : CallOutcome.FAILED);
            throw ex;
        }
        catch (IOException | RuntimeException | Error ex) {
            logger.warn("Call to client '" + clientName() + "', model '" + modelName() + "' failed: " + ex);
            callEnded(CallOutcome.FAILED);
            throw ex;
        }
    }

    private void callEnded(CallOutcome outcome) {
        this.client.events.onCall(this.client.getName(), this.model.name, outcome, since(this.startNanos));
    }

    private ThrottledResponse<R> attempt(int retryCount) throws IOException {
        // Before admission, so that an open circuit fails fast instead of queueing. The
        // permission goes with the attempt's outcome to the events; a stream takes it
        // along until it ends.
        Attempt attempt = new Attempt(this.model.circuit.acquire());
        try {
            return attempt.run();
        }
        finally {
            if (!attempt.handedOver) {
                attempt.circuit.release();
            }
        }
    }

    private Duration since(long startNanos) {
        return Duration.ofNanos(this.client.time.nanoTime() - startNanos);
    }

    /** One HTTP attempt of the call. */
    private final class Attempt {

        final ModelCircuit.Permission circuit;

        boolean handedOver;

        private @Nullable Permit permit;

        private long sentNanos;

        Attempt(ModelCircuit.Permission circuit) {
            this.circuit = circuit;
        }

        ThrottledResponse<R> run() throws IOException {
            long queued = ThrottledCall.this.client.time.nanoTime();
            Permit permit = admit();
            this.permit = permit;
            this.sentNanos = ThrottledCall.this.client.time.nanoTime();
            ThrottledCall.this.client.events.onAdmitted(clientName(), modelName(),
                    ThrottledCall.this.admission.priority(), Duration.ofNanos(this.sentNanos - queued));
            R response;
            try {
                response = ThrottledCall.this.exchange.execute();
            }
            catch (IOException ex) {
                permit.settle(ThrottledCall.this.admission.inputTokens(), 0);
                if (ResponseClassifier.isCancellation(ex)) {
                    // the caller gave up: not the provider's failure, nor a capacity
                    // signal; the
                    // circuit's permission is released without an outcome
                    permit.release(Permit.Outcome.IGNORED);
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
            try {
                return ThrottledCall.this.model.limiter.acquire(ThrottledCall.this.admission);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                InterruptedIOException interrupted = new InterruptedIOException(
                        "Interrupted while waiting for admission to client '" + clientName() + "', model '"
                                + modelName() + "'");
                interrupted.initCause(ex);
                throw interrupted;
            }
        }

        /** The attempt's one event: its outcome to the circuit and to every observer. */
        private void ended(Outcome outcome, int status) {
            this.circuit.record(outcome);
            ThrottledCall.this.client.events.onAttempt(clientName(), modelName(), outcome, status,
                    since(this.sentNanos));
        }

        private ThrottledResponse<R> handle(R response) throws IOException {
            int status = response.status();
            Headers headers = response.headers();
            Permit permit = permit();
            if (status / 100 == 2) {
                calibrate(RateLimitHeaders.parse(settings().provider(), headers,
                        ThrottledCall.this.client.time.instant()));
                if (ThrottledCall.this.streaming || EVENT_STREAM.equals(headers.mediaType())) {
                    return stream(response, status, headers, permit);
                }
                ended(Outcome.SUCCESS, status);
                byte[] body;
                try (response; InputStream in = response.body()) {
                    body = readBody(in, headers.contentLength());
                }
                catch (IOException ex) {
                    if (ResponseClassifier.isCancellation(ex)) {
                        throw ex;
                    }
                    throw new ResponseBodyReadException("The body of a " + status + " response of client '"
                            + clientName() + "', model '" + modelName() + "' failed while read; not retried, the call"
                            + " was answered (and billed)", ex);
                }
                Usage usage = ThrottledCall.this.client.usageReader.read(body);
                if (usage != null) {
                    usage = sane(usage);
                    permit.settle(usage.inputTokens(), usage.outputTokens());
                    recordUsage(usage);
                }
                permit.release(Permit.Outcome.SUCCESS);
                return ThrottledResponse.buffered(response, body);
            }
            byte[] errorBody;
            try (response; InputStream in = response.body()) {
                errorBody = in.readNBytes(MAX_ERROR_BODY);
            }
            Classification classification = ThrottledCall.this.client.classifier.classify(status, headers, errorBody);
            ended(classification.outcome(), status);
            RateLimitSnapshot rateLimits = classification.rateLimits();
            if (classification.outcome() == Outcome.RATE_LIMITED && rateLimits != null && !rateLimits.isEmpty()) {
                ThrottledCall.this.model.limiter.calibrateRejected(rateLimits);
            }
            else {
                calibrate(rateLimits);
            }
            Duration serverWait = classification.serverWait();
            if (classification.outcome() == Outcome.RATE_LIMITED && serverWait != null) {
                pauseModel(serverWait, "HTTP " + status, requestId(headers));
            }
            if (classification.retryable()) {
                permit.settle(ThrottledCall.this.admission.inputTokens(), 0);
                permit.release(isCapacitySignal(classification) ? Permit.Outcome.DROPPED : Permit.Outcome.IGNORED);
                throw new RetryableResponseException(classification, response.toException(errorBody),
                        requestId(headers));
            }
            permit.settle(0, 0);
            permit.release(Permit.Outcome.IGNORED);
            return ThrottledResponse.buffered(response, errorBody);
        }

        /**
         * A 2xx stream: passed through as it arrives; its attempt ends (for the events
         * and the circuit, whose permission it takes along) when the stream does, as what
         * its error event says if it has one.
         */
        private ThrottledResponse<R> stream(R response, int status, Headers headers, Permit permit) {
            this.handedOver = true;
            ThrottledClient client = ThrottledCall.this.client;
            // the settlement, once built: its end takes it off the client's open streams
            StreamSettlement[] self = new StreamSettlement[1];
            StreamSettlement settlement = new StreamSettlement(response, client.usageReader, (outcome) -> {
                if (self[0] != null) {
                    client.openStreams.remove(self[0]);
                }
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
                        RetryAfter serverWait = RetryAfter.fromHeaders(headers, ThrottledCall.this.client.time.clock());
                        if (serverWait != null) {
                            pauseModel(serverWait.duration(), "a rate-limit event in a 200 stream", requestId(headers));
                        }
                    }
                    permit.release((attemptOutcome != Outcome.SUCCESS) ? Permit.Outcome.DROPPED
                            : outcome.complete() ? Permit.Outcome.SUCCESS : Permit.Outcome.IGNORED);
                }
                finally {
                    this.circuit.release();
                }
            }, client.time::nanoTime);
            self[0] = settlement;
            client.openStreams.add(settlement);
            return ThrottledResponse.streamed(response, settlement);
        }

        private Permit permit() {
            Permit permit = this.permit;
            if (permit == null) {
                throw new IllegalStateException("No permit: the attempt was not admitted");
            }
            return permit;
        }

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
        if (errorType.startsWith("overloaded")) {
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
     * Holds every call of the model for the server's wait after a 429, but never longer
     * than {@code max-retry-after}: a longer wait (a reset a day away, a garbage value)
     * fails the calls that would sleep it anyway, and must not stall the model for
     * longer.
     */
    private void pauseModel(Duration serverWait, String signal, @Nullable String requestId) {
        Duration cap = this.client.settings.retry().maxRetryAfter();
        Duration pause = (serverWait.compareTo(cap) > 0) ? cap : serverWait;
        this.model.limiter.pause(pause);
        logger.info("Client '" + clientName() + "', model '" + modelName() + "': rate limited (" + signal
                + ((requestId != null) ? ", request id " + requestId : "") + "); every call of the model waits " + pause
                + ((pause != serverWait) ? " (the server asked for " + serverWait + ")" : ""));
    }

    /**
     * The provider's request id of a response: {@code request-id} (Anthropic) or
     * {@code x-request-id}.
     */
    private static @Nullable String requestId(Headers headers) {
        String id = headers.first("request-id");
        return (id != null) ? id : headers.first("x-request-id");
    }

    private void calibrate(@Nullable RateLimitSnapshot snapshot) {
        if (snapshot != null && !snapshot.isEmpty()) {
            this.model.limiter.calibrate(snapshot);
        }
    }

    private Usage sane(Usage usage) {
        return UsageBounds.sane(usage, this.model.limiter.limits(), clientName(), modelName());
    }

    private void recordUsage(Usage usage) {
        this.client.events.onUsage(this.client.getName(), this.model.name, usage);
        this.client.estimator.observe(this.model.name, this.llmRequest, usage.inputTokens());
    }

    private ClientSettings settings() {
        return this.client.settings;
    }

    private String clientName() {
        return this.client.getName();
    }

    private String modelName() {
        return this.model.name;
    }

}
