package io.github.llmthrottle.retry;

import java.io.IOException;
import java.time.Clock;
import java.util.Locale;

import io.github.llmthrottle.provider.Headers;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.provider.ProviderError;
import io.github.llmthrottle.provider.RateLimitHeaders;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * Decides, for one provider dialect, what a response or an I/O error means for retrying.
 * <p>
 * Rules, in order:
 * <ol>
 * <li>Below 400: {@link Classification.Outcome#SUCCESS}, not retried.</li>
 * <li>413 is classified by its status alone (the body is often Cloudflare's HTML
 * page).</li>
 * <li>{@code x-should-retry: true} or {@code false} (exact, lowercase) decides, whatever
 * the status and body: the provider knows best (the contract of this library says so, and
 * the Stainless SDKs check it first too).</li>
 * <li>Otherwise a quota, billing or spend-limit error in the body (or status 402) is
 * {@link Classification.Outcome#QUOTA_EXHAUSTED} and is not retried: retrying cannot
 * succeed until a person acts or the period ends.</li>
 * <li>Otherwise by status: 408, 409, 429 and every 5xx except 501 and 505 are retried
 * (529 and 503 "overloaded" are {@link Classification.Outcome#OVERLOADED}); every other
 * status is not.</li>
 * </ol>
 * I/O errors are retried, timeouts among them, unless they are the caller's
 * {@linkplain Cancellation cancellation}. The server's wait is resolved with
 * {@link RetryAfter#resolve} whatever the decision, so a caller can report when a
 * non-retryable quota error says access resumes.
 */
public final class ResponseClassifier {

    private final ProviderDialect dialect;

    private final Clock clock;

    /**
     * Creates a classifier.
     * @param dialect the provider dialect, which decides the rate-limit headers read
     * @param clock the clock server waits and resets are measured against
     */
    public ResponseClassifier(ProviderDialect dialect, Clock clock) {
        this.dialect = dialect;
        this.clock = clock;
    }

    /**
     * Classifies a response.
     * @param status the status code
     * @param headers the response headers
     * @param body the response body (only its first 64 KiB are read), may be {@code null}
     * @return the classification
     */
    public Classification classify(int status, Headers headers, byte @Nullable [] body) {
        RateLimitSnapshot rateLimits = RateLimitHeaders.parse(this.dialect, headers, this.clock.instant());
        String reason = reason(status);
        if (status < 400) {
            return new Classification(Classification.Outcome.SUCCESS, status, false, null, null, rateLimits, reason);
        }
        ProviderError error = (status != 413) ? ProviderError.parse(body, headers.mediaType()) : null;
        Classification.Outcome outcome = outcome(status, error);
        boolean retryable;
        String shouldRetry = headers.first("x-should-retry");
        if ("true".equals(shouldRetry)) {
            retryable = true;
        }
        else if ("false".equals(shouldRetry)) {
            retryable = false;
        }
        else if (outcome == Classification.Outcome.QUOTA_EXHAUSTED) {
            retryable = false;
        }
        else {
            retryable = isRetryableStatus(status);
        }
        RetryAfter retryAfter = RetryAfter.resolve(headers, rateLimits, error, this.clock);
        return new Classification(outcome, status, retryable, retryAfter, error, rateLimits, reason);
    }

    /**
     * Classifies an I/O error: connection refused or reset, a timeout. Retryable unless
     * it is a {@linkplain Cancellation#isCancellation(IOException) cancellation} or the
     * body of a successful response failed while read ({@link ResponseBodyReadException}:
     * it was billed).
     * @param failure the exception
     * @return the classification
     */
    public Classification classify(IOException failure) {
        return ioError(failure);
    }

    static Classification ioError(IOException failure) {
        boolean retryable = !Cancellation.isCancellation(failure) && !(failure instanceof ResponseBodyReadException);
        return new Classification(Classification.Outcome.IO_ERROR, 0, retryable, null, null, null, "io");
    }

    private static Classification.Outcome outcome(int status, @Nullable ProviderError error) {
        if (status == 402 || (status >= 400 && status < 500 && error != null && error.quotaExhausted())) {
            return Classification.Outcome.QUOTA_EXHAUSTED;
        }
        return switch (status) {
            case 408 -> Classification.Outcome.TIMEOUT;
            case 409 -> Classification.Outcome.CONFLICT;
            case 429 -> Classification.Outcome.RATE_LIMITED;
            case 529 -> Classification.Outcome.OVERLOADED;
            case 503 -> isOverloaded(error) ? Classification.Outcome.OVERLOADED : Classification.Outcome.SERVER_ERROR;
            default -> (status >= 500) ? Classification.Outcome.SERVER_ERROR : Classification.Outcome.CLIENT_ERROR;
        };
    }

    private static boolean isOverloaded(@Nullable ProviderError error) {
        if (error == null) {
            return false;
        }
        String message = error.message();
        return "overloaded_error".equals(error.type()) || "server_is_overloaded".equals(error.code())
                || (message != null && message.toLowerCase(Locale.ROOT).contains("overloaded"));
    }

    private static boolean isRetryableStatus(int status) {
        return status == 408 || status == 409 || status == 429 || (status >= 500 && status != 501 && status != 505);
    }

    private static String reason(int status) {
        return switch (status) {
            case 429, 529, 503 -> Integer.toString(status);
            default -> (status >= 500 && status < 600) ? "5xx" : Integer.toString(status);
        };
    }

}
