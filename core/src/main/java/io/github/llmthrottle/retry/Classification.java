package io.github.llmthrottle.retry;

import java.time.Duration;

import io.github.llmthrottle.provider.ProviderError;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * What one HTTP attempt came to, as {@link ResponseClassifier} sees it: the kind of
 * outcome, whether retrying can help, and what the server said about waiting.
 *
 * @param outcome the kind of outcome
 * @param status the HTTP status, or {@code 0} for an I/O error
 * @param retryable whether the call should be tried again
 * @param retryAfter the server's wait and its source, or {@code null} when it gave none
 * @param error the parsed error body, or {@code null} for successes, I/O errors, and
 * statuses classified without reading the body (413)
 * @param rateLimits the rate-limit headers of the response, or {@code null} for I/O
 * errors
 * @param reason the metric reason: {@code 429}, {@code 529}, {@code 503}, {@code 5xx}
 * (other 5xx), {@code io}, or else the status code itself ({@code 408}, {@code 409},
 * {@code 400}, ...)
 */
public record Classification(Outcome outcome, int status, boolean retryable, @Nullable RetryAfter retryAfter,
        @Nullable ProviderError error, @Nullable RateLimitSnapshot rateLimits, String reason) {

    /**
     * How long the server asked to wait.
     * @return the wait, or {@code null} when the server gave none
     */
    public @Nullable Duration serverWait() {
        return (this.retryAfter != null) ? this.retryAfter.duration() : null;
    }

    /**
     * A short description for exception messages and logs, such as
     * {@code HTTP 429 rate_limited}.
     * @return the description
     */
    public String describe() {
        String what = (this.outcome == Outcome.IO_ERROR) ? "I/O error" : "HTTP " + this.status;
        String detail = (this.error != null && this.error.type() != null) ? " " + this.error.type() : "";
        return what + " (" + this.outcome.metricTag() + ")" + detail;
    }

    /**
     * Whether this answer says the provider is short of capacity (a rate limit, an
     * overload, a timeout, a 503): the concurrency limit learns from it.
     * @return {@code true} for a capacity signal
     */
    public boolean isCapacitySignal() {
        return switch (this.outcome) {
            case RATE_LIMITED, OVERLOADED, TIMEOUT -> true;
            default -> this.status == 503;
        };
    }

    /** The kinds of outcome. */
    public enum Outcome {

        /** A status below 400. */
        SUCCESS("success"),

        /** 429 because of a rate limit: retry after the server's wait. */
        RATE_LIMITED("rate_limited"),

        /** 529, or 503 saying the service is overloaded. */
        OVERLOADED("overloaded"),

        /** Any other 5xx. */
        SERVER_ERROR("server_error"),

        /** 408 Request Timeout. */
        TIMEOUT("server_error"),

        /** 409 Conflict. */
        CONFLICT("client_error"),

        /** Any other 4xx. */
        CLIENT_ERROR("client_error"),

        /**
         * Quota, billing or spend limit reached (402, quota 429s): retrying cannot help.
         */
        QUOTA_EXHAUSTED("client_error"),

        /** No response: connection refused or reset, read timeout. */
        IO_ERROR("io_error");

        private final String metricTag;

        Outcome(String metricTag) {
            this.metricTag = metricTag;
        }

        /**
         * The {@code outcome} tag of the {@code llm.requests} metric: {@code success},
         * {@code rate_limited}, {@code overloaded}, {@code client_error},
         * {@code server_error} or {@code io_error}.
         * @return the tag value
         */
        public String metricTag() {
            return this.metricTag;
        }

    }

}
