package io.github.llmthrottle.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.llmthrottle.provider.LlmRequest;
import io.github.llmthrottle.provider.LogText;
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
 * model's. A count still running when the call stops waiting (timeout, interrupt) is
 * cancelled, which aborts its HTTP exchange.
 */
final class ExactTokenCounts {

    private static final Log logger = LogFactory.getLog(ExactTokenCounts.class);

    /** For clients that estimate only. */
    static final ExactTokenCounts NONE = new ExactTokenCounts(CountTokensSettings.OFF, null, null);

    private final CountTokensSettings settings;

    private final @Nullable TokenCounter counter;

    private final @Nullable TokenBucket budget;

    ExactTokenCounts(CountTokensSettings settings, @Nullable TokenCounter counter, @Nullable TimeSource time) {
        this.settings = settings;
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
        TokenCounter counter = this.counter;
        TokenBucket budget = this.budget;
        if (counter == null || budget == null || !worthCounting(request, read) || !budget.tryConsume(1)) {
            return estimate;
        }
        CompletableFuture<Long> count;
        try {
            count = counter.countInputTokens(model, request);
        }
        catch (RuntimeException ex) {
            logger.debug(
                    LogText.escape("Counting the input tokens of a call to '" + model + "' failed; using the estimate"),
                    ex);
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
            logger.debug(LogText.escape("Counting the input tokens of a call to '" + model + "' took longer than "
                    + this.settings.timeout() + "; using the estimate"));
            return estimate;
        }
        catch (ExecutionException | RuntimeException ex) {
            logger.debug(LogText.escape("Counting the input tokens of a call to '" + model + "' failed ("
                    + ex.getCause() + "); using the estimate"));
            return estimate;
        }
        finally {
            // nothing outlives the wait: a count still running is aborted
            count.cancel(true);
        }
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
