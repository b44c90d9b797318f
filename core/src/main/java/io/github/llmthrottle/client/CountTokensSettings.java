package io.github.llmthrottle.client;

import java.time.Duration;

/**
 * Whether and when a client asks the provider to count a request's input tokens
 * (Anthropic's {@code POST /v1/messages/count_tokens}) instead of estimating them from
 * its characters. A request is counted when it has at least {@code minCharacters}
 * characters of text or carries images or documents, as long as the counts of the last
 * minute stay within {@code requestsPerMinute}; a count that takes longer than
 * {@code timeout}, or fails in any way, leaves the estimate in place.
 *
 * @param enabled whether requests are counted at all
 * @param minCharacters the least text, in characters, a request without media needs to be
 * counted
 * @param requestsPerMinute how many counts the client asks for per minute at most, the
 * provider's own limit on token counting
 * @param timeout how long a call waits for its count before it goes on with the estimate
 */
public record CountTokensSettings(boolean enabled, long minCharacters, int requestsPerMinute, Duration timeout) {

    /** Anthropic's token counting limit at its first usage tier. */
    public static final int DEFAULT_REQUESTS_PER_MINUTE = 100;

    /** Counting off; the other values are the defaults used when it is turned on. */
    public static final CountTokensSettings OFF = new CountTokensSettings(false, 20_000, DEFAULT_REQUESTS_PER_MINUTE,
            Duration.ofSeconds(2));

    public CountTokensSettings {
        if (minCharacters < 0) {
            throw new IllegalArgumentException("minCharacters must not be negative but was " + minCharacters);
        }
        if (requestsPerMinute < 1) {
            throw new IllegalArgumentException("requestsPerMinute must be at least 1 but was " + requestsPerMinute);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive but was " + timeout);
        }
    }

    /**
     * A copy that counts, or does not.
     * @param enabled whether requests are counted
     * @return the new settings
     */
    public CountTokensSettings withEnabled(boolean enabled) {
        return new CountTokensSettings(enabled, this.minCharacters, this.requestsPerMinute, this.timeout);
    }

    /**
     * A copy with another threshold.
     * @param minCharacters the least text a request without media needs to be counted
     * @return the new settings
     */
    public CountTokensSettings withMinCharacters(long minCharacters) {
        return new CountTokensSettings(this.enabled, minCharacters, this.requestsPerMinute, this.timeout);
    }

    /**
     * A copy with another budget.
     * @param requestsPerMinute how many counts per minute at most
     * @return the new settings
     */
    public CountTokensSettings withRequestsPerMinute(int requestsPerMinute) {
        return new CountTokensSettings(this.enabled, this.minCharacters, requestsPerMinute, this.timeout);
    }

    /**
     * A copy with another timeout.
     * @param timeout how long a call waits for its count
     * @return the new settings
     */
    public CountTokensSettings withTimeout(Duration timeout) {
        return new CountTokensSettings(this.enabled, this.minCharacters, this.requestsPerMinute, timeout);
    }

}
