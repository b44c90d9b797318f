package io.github.llmthrottle.client;

import java.nio.charset.StandardCharsets;

/**
 * An error response of a provider, for adapters whose HTTP library has no exception of
 * its own for one: the cause of {@link io.github.llmthrottle.RetriesExhaustedException}
 * when every retry of it failed.
 */
public class ProviderResponseException extends RuntimeException {

    private static final int MAX_MESSAGE_BODY = 512;

    private final int status;

    private final byte[] body;

    /**
     * Creates an exception for an error response.
     * @param status the HTTP status
     * @param body the response body
     */
    public ProviderResponseException(int status, byte[] body) {
        super("HTTP " + status + ((body.length > 0) ? ": " + excerpt(body) : ""));
        this.status = status;
        this.body = body;
    }

    private static String excerpt(byte[] body) {
        String text = new String(body, 0, Math.min(body.length, MAX_MESSAGE_BODY), StandardCharsets.UTF_8);
        return (body.length > MAX_MESSAGE_BODY) ? text + "..." : text;
    }

    /**
     * The HTTP status.
     * @return the status
     */
    public int getStatus() {
        return this.status;
    }

    /**
     * The response body.
     * @return the body
     */
    public byte[] getBody() {
        return this.body.clone();
    }

}
