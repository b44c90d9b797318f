package io.github.llmthrottle.autoconfigure;

import java.time.Duration;

import io.github.llmthrottle.client.CountTokensSettings;

/**
 * When a client whose {@code estimation} is {@code count-tokens} asks Anthropic's
 * {@code /v1/messages/count_tokens} for a request's input tokens, and within what budget
 * ({@code llm.throttle.clients.NAME.count-tokens.*}).
 */
public class CountTokensProperties {

    /**
     * Least characters of prompt text for which a request without images or documents is
     * counted; smaller prompts keep the estimate.
     */
    private long minCharacters = CountTokensSettings.OFF.minCharacters();

    /**
     * Most count_tokens requests per minute, the provider's own limit on token counting
     * (100 at Anthropic's first usage tier); calls over it keep the estimate.
     */
    private int requestsPerMinute = CountTokensSettings.DEFAULT_REQUESTS_PER_MINUTE;

    /**
     * Longest a call waits for its count before it goes on with the estimate.
     */
    private Duration timeout = CountTokensSettings.OFF.timeout();

    public long getMinCharacters() {
        return this.minCharacters;
    }

    public void setMinCharacters(long minCharacters) {
        this.minCharacters = minCharacters;
    }

    public int getRequestsPerMinute() {
        return this.requestsPerMinute;
    }

    public void setRequestsPerMinute(int requestsPerMinute) {
        this.requestsPerMinute = requestsPerMinute;
    }

    public Duration getTimeout() {
        return this.timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

}
