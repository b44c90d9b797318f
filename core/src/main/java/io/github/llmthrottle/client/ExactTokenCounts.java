package io.github.llmthrottle.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.llmthrottle.provider.LlmRequest;
import io.github.llmthrottle.provider.LogText;
import io.github.llmthrottle.retry.RetryEngine;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.store.TokenBucket;
import io.github.llmthrottle.time.TimeSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The input tokens a call reserves at admission: the estimate, or, for a client that
 * counts ({@link CountTokensSettings}), the provider's own count of a large request or
 * one with images or documents. Counting never fails a call and never holds it longer
 * than the timeout: a count that is slow, refused, failed, or over the client's counting
 * budget leaves the estimate in place. The budget is a bucket of its own, never the
 * model's. A count still running when the call stops waiting (timeout, interrupt, the
 * caller's cancel) is cancelled, which aborts its HTTP exchange. A blocking call waits
 * for the count ({@link #inputTokens}); a call that holds no thread goes on when it comes
 * ({@link #inputTokensAsync}), its timeout scheduled on the client's time source.
 */
final class ExactTokenCounts {

    private static final Log logger = LogFactory.getLog(ExactTokenCounts.class);

    /** For clients that estimate only. */
    static final ExactTokenCounts NONE = new ExactTokenCounts(CountTokensSettings.OFF, null, null);

    private final CountTokensSettings settings;

    private final @Nullable TokenCounter counter;

    private final @Nullable TokenBucket budget;

    private final @Nullable TimeSource time;

    ExactTokenCounts(CountTokensSettings settings, @Nullable TokenCounter counter, @Nullable TimeSource time) {
        this.settings = settings;
        this.time = time;
        this.counter = settings.enabled() ? counter : null;
        this.budget = (this.counter != null && time != null)
                ? new LocalBucketStore(time).bucket("count-tokens", settings.requestsPerMinute()) : null;
    }

    /**
     * The counting of a client, as its settings say: over the JDK's HTTP client for an
     * Anthropic client that counts, none otherwise.
     */
    static ExactTokenCounts of(ClientSettings client, TimeSource time) {
        CountTokensSettings settings = client.countTokens();
        if (!settings.enabled()) {
            return NONE;
        }
        return new ExactTokenCounts(settings, new AnthropicTokenCounter(client, settings.timeout()), time);
    }

    /**
     * The input tokens to reserve for a call.
     * @param model the model the call is for
     * @param request the request as sent
     * @param read what the request body says
     * @param estimate the estimator's figure
     * @return the provider's count when one was asked for and came in time, else
     * {@code estimate}
     */
    long inputTokens(String model, ProviderRequest request, LlmRequest read, long estimate) {
        CompletableFuture<Long> count = startCount(model, request, read);
        if (count == null) {
            return estimate;
        }
        try {
            return count.get(this.settings.timeout().toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (InterruptedException ex) {
            // the caller's interrupt is for the call: admission sees it next
            Thread.currentThread().interrupt();
            return estimate;
        }
        catch (TimeoutException ex) {
            logTimeout(model);
            return estimate;
        }
        catch (ExecutionException | RuntimeException ex) {
            logFailure(model, ex.getCause());
            return estimate;
        }
        finally {
            // nothing outlives the wait: a count still running is aborted
            count.cancel(true);
        }
    }

    /**
     * The input tokens to reserve for a call, as {@link #inputTokens} works them out,
     * without holding a thread: the call goes on on the thread that completes the count,
     * or on the time source's when the timeout ends the wait first.
     * @param model the model the call is for
     * @param request the request as sent
     * @param read what the request body says
     * @param estimate the estimator's figure
     * @return the provider's count when one was asked for and came in time, else
     * {@code estimate}; never a failure. Cancelling it cancels the count.
     */
    CompletableFuture<Long> inputTokensAsync(String model, ProviderRequest request, LlmRequest read, long estimate) {
        CompletableFuture<Long> count = startCount(model, request, read);
        TimeSource time = this.time;
        if (count == null || time == null) {
            return CompletableFuture.completedFuture(estimate);
        }
        CompletableFuture<Long> result = new CompletableFuture<>();
        TimeSource.Scheduled timeout = time.schedule(() -> {
            if (result.complete(estimate)) {
                logTimeout(model);
            }
        }, this.settings.timeout().toNanos());
        count.whenComplete((tokens, failure) -> {
            timeout.cancel();
            if (failure == null) {
                result.complete(tokens);
            }
            else if (result.complete(estimate)) {
                logFailure(model, RetryEngine.causeOf(failure));
            }
        });
        // nothing outlives the wait: a count still running when the timeout ends it, or
        // the caller gives up, is aborted
        result.whenComplete((tokens, failure) -> {
            timeout.cancel();
            count.cancel(true);
        });
        return result;
    }

    /**
     * Starts the count of a request worth counting, within the budget.
     * @return the count, or {@code null} when the estimate stands
     */
    private @Nullable CompletableFuture<Long> startCount(String model, ProviderRequest request, LlmRequest read) {
        TokenCounter counter = this.counter;
        TokenBucket budget = this.budget;
        if (counter == null || budget == null || !worthCounting(request, read) || !budget.tryConsume(1)) {
            return null;
        }
        try {
            return counter.countInputTokens(model, request);
        }
        catch (RuntimeException ex) {
            logger.debug(
                    LogText.escape("Counting the input tokens of a call to '" + model + "' failed; using the estimate"),
                    ex);
            return null;
        }
    }

    private void logTimeout(String model) {
        logger.debug(LogText.escape("Counting the input tokens of a call to '" + model + "' took longer than "
                + this.settings.timeout() + "; using the estimate"));
    }

    private static void logFailure(String model, @Nullable Throwable failure) {
        logger.debug(LogText.escape(
                "Counting the input tokens of a call to '" + model + "' failed (" + failure + "); using the estimate"));
    }

    /**
     * Whether a request is large enough, or carries media, to be worth a count: only a
     * Messages call is, never a call to another endpoint of the same client.
     */
    private boolean worthCounting(ProviderRequest request, LlmRequest read) {
        String path = request.uri().getPath();
        if (path == null || !(path.endsWith("/messages") || path.endsWith("/messages/"))) {
            return false;
        }
        return read.mediaTokens() > 0 || read.textCharacters() >= this.settings.minCharacters();
    }

}
