package io.github.llmthrottle;

import java.time.Duration;

import io.github.llmthrottle.provider.LogText;
import org.jspecify.annotations.Nullable;

/**
 * Base class of every throttling failure: the call was not admitted, or the provider kept
 * refusing it. Says which client and model, and when known, how long to wait before
 * trying again. Errors that retrying cannot fix (400, 401, quota 429s, ...) are not
 * throttling failures: they surface as Spring's own {@code RestClientResponseException}s.
 */
public class LlmThrottleException extends RuntimeException {

    private final String client;

    private final String model;

    private final @Nullable Duration retryAfter;

    private final @Nullable String requestId;

    public LlmThrottleException(String message, String client, String model, @Nullable Duration retryAfter,
            @Nullable Throwable cause) {
        this(message, client, model, retryAfter, cause, null);
    }

    /**
     * Creates an exception that knows the provider's request id of the last response.
     * @param message the message
     * @param client the client name
     * @param model the model name
     * @param retryAfter how long to wait, or {@code null}
     * @param cause the cause, or {@code null}
     * @param requestId the provider's request id of the last response, or {@code null}
     */
    protected LlmThrottleException(String message, String client, String model, @Nullable Duration retryAfter,
            @Nullable Throwable cause, @Nullable String requestId) {
        // names and ids a request or a provider chose end up in logs through the message
        super(LogText.escape(message + ((requestId != null) ? " (request id " + requestId + ")" : "")), cause);
        this.client = client;
        this.model = model;
        this.retryAfter = retryAfter;
        this.requestId = requestId;
    }

    /**
     * The configured client the call was made through.
     * @return the client name
     */
    public String getClient() {
        return this.client;
    }

    /**
     * The model the call was for.
     * @return the model name
     */
    public String getModel() {
        return this.model;
    }

    /**
     * How long to wait before the call may succeed.
     * @return the wait, or {@code null} when unknown
     */
    public @Nullable Duration getRetryAfter() {
        return this.retryAfter;
    }

    /**
     * The provider's request id of the last response ({@code request-id} from Anthropic,
     * {@code x-request-id} from OpenAI), to quote to its support.
     * @return the request id, or {@code null} when no response carried one (or none came)
     */
    public @Nullable String getRequestId() {
        return this.requestId;
    }

    /**
     * Why the call was refused without (another) attempt at the provider.
     * @return the reason, or {@code null} when the call was attempted and failed (retries
     * exhausted) rather than refused
     */
    public @Nullable RejectionReason getRejectionReason() {
        return null;
    }

    static String describe(String client, String model) {
        return "client '" + client + "', model '" + model + "'";
    }

    static String retryHint(@Nullable Duration retryAfter) {
        return (retryAfter != null) ? "; retry after " + format(retryAfter) : "";
    }

    static String format(Duration duration) {
        long millis = duration.toMillis();
        return (millis % 1000 == 0) ? (millis / 1000) + "s" : millis + "ms";
    }

}
