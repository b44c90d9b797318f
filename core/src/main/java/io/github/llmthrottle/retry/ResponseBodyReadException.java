package io.github.llmthrottle.retry;

import java.io.IOException;

/**
 * The body of a successful (2xx) response failed while it was read. Never retried: the
 * provider has answered, and billed, the call, so a retry would pay for it twice. The
 * cause is the I/O error.
 */
public class ResponseBodyReadException extends IOException {

    /**
     * Creates the exception.
     * @param message what failed
     * @param cause the I/O error
     */
    public ResponseBodyReadException(String message, IOException cause) {
        super(message, cause);
    }

}
