package io.github.llmthrottle.client;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.RefillWait;
import io.github.llmthrottle.provider.Headers;
import io.github.llmthrottle.provider.LogText;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.retry.Classification;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.retry.RetryAfter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The model-wide pause after a rate limit: every call of the model (or of the deployment)
 * an attempt was measured as waits the server's wait, capped at {@code max-retry-after}.
 */
final class ModelPause {

    /** Logged as the attempt whose answer paused the model, as it always was. */
    private static final Log logger = LogFactory.getLog(ThrottledAttempt.class);

    /** What the pause of an answer that paused nothing waits for. */
    static final CompletableFuture<Void> NONE = CompletableFuture.completedFuture(null);

    private ModelPause() {
    }

    /**
     * Pauses the model after an error answer that was a rate limit with a wait.
     * @param call the refused call
     * @param target the model or deployment that refused it
     * @param classification the answer
     * @param status its HTTP status
     * @param requestId the provider's request id, or {@code null}
     * @return completes once every instance sharing a store holds the pause too
     * ({@link #NONE} when nothing was paused)
     */
    static CompletableFuture<Void> afterRefusal(CallContext call, ThrottledModel target, Classification classification,
            int status, @Nullable String requestId) {
        Duration serverWait = classification.serverWait();
        if (classification.outcome() != Outcome.RATE_LIMITED || serverWait == null) {
            return NONE;
        }
        return pause(call, target, untilTheCallFits(call, target, classification, serverWait), "HTTP " + status,
                requestId);
    }

    /**
     * Pauses the model after a rate limit inside a 200 stream, when its headers said how
     * long to wait (Azure sends retry-after with it).
     * @param call the call whose stream ended
     * @param target the model or deployment that answered it
     * @param headers the stream's headers
     */
    static void afterStreamedRateLimit(CallContext call, ThrottledModel target, Headers headers) {
        RetryAfter serverWait = RetryAfter.fromHeaders(headers, call.pipeline().time().clock());
        if (serverWait != null) {
            pause(call, target, serverWait.duration(), "a rate-limit event in a 200 stream",
                    ResponseBodies.requestId(headers));
        }
    }

    /**
     * How long the model pauses after a 429: the server's explicit wait, or, when its
     * only hint is when the exhausted dimension is full again, until the refused call
     * fits ({@link RefillWait}).
     * @param call the refused call
     * @param target the model or deployment that refused it
     * @param classification the 429
     * @param serverWait the server's wait
     * @return the pause
     */
    static Duration untilTheCallFits(CallContext call, ThrottledModel target, Classification classification,
            Duration serverWait) {
        RetryAfter retryAfter = classification.retryAfter();
        RateLimitSnapshot rateLimits = classification.rateLimits();
        if (retryAfter == null || retryAfter.source() != RetryAfter.Source.RESET_HEADER || rateLimits == null) {
            return serverWait;
        }
        AdmissionRequest request = call.admission();
        Duration fits = RefillWait.untilFits(rateLimits, target.limiter.limits(), request.inputTokens(),
                request.outputTokens(), call.pipeline().time().clock().instant());
        return (fits != null && fits.compareTo(serverWait) < 0) ? fits : serverWait;
    }

    /**
     * Holds every call of the model for the server's wait after a 429, but never longer
     * than {@code max-retry-after}: a longer wait (a reset a day away, a garbage value)
     * fails the calls that would sleep it anyway, and must not stall the model for
     * longer.
     * @param call the call that was rate limited
     * @param target the model or deployment to pause
     * @param serverWait the server's wait
     * @param signal what said so, for the log
     * @param requestId the provider's request id, or {@code null}
     * @return completes once every instance sharing a store holds the pause too
     */
    private static CompletableFuture<Void> pause(CallContext call, ThrottledModel target, Duration serverWait,
            String signal, @Nullable String requestId) {
        Duration cap = call.pipeline().settings().retry().maxRetryAfter();
        Duration pause = (serverWait.compareTo(cap) > 0) ? cap : serverWait;
        CompletableFuture<Void> shared = target.limiter.pauseAsync(pause);
        logger.info(LogText.escape("Client '" + call.clientName() + "', model '" + target.name + "': rate limited ("
                + signal + ((requestId != null) ? ", request id " + requestId : "") + "); every call of "
                + ((target.deployment != null) ? "this deployment" : "the model") + " waits " + pause
                + ((pause != serverWait) ? " (the server asked for " + serverWait + ")" : "")));
        return shared;
    }

}
