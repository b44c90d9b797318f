package io.github.llmthrottle.client;

import java.io.IOException;
import java.io.InputStream;

import io.github.llmthrottle.provider.Headers;
import org.jspecify.annotations.Nullable;

/**
 * How the call pipeline reads what a provider answered: a whole body, the bounded start
 * of an error's body, and the provider's request id.
 */
final class ResponseBodies {

    /** The most of an error's body that is read. */
    static final int MAX_ERROR_BODY = 1024 * 1024;

    private static final int MAX_EXACT_BODY = 64 * 1024 * 1024;

    private ResponseBodies() {
    }

    /**
     * Reads a whole body, into an array of exactly its {@code Content-Length} when the
     * provider sent one (as JSON responses have), instead of growing buffers and copying.
     * @param in the body
     * @param contentLength its announced length, or a negative number when unknown
     * @return the body's bytes
     * @throws IOException when it cannot be read
     */
    static byte[] readBody(InputStream in, long contentLength) throws IOException {
        if (contentLength < 0 || contentLength > MAX_EXACT_BODY) {
            return in.readAllBytes();
        }
        byte[] body = in.readNBytes((int) contentLength);
        if (body.length < contentLength) {
            return body;
        }
        int next = in.read();
        if (next < 0) {
            return body;
        }
        // more than announced (a decoded body, or a wrong header): keep all of it
        byte[] rest = in.readAllBytes();
        byte[] all = new byte[body.length + 1 + rest.length];
        System.arraycopy(body, 0, all, 0, body.length);
        all[body.length] = (byte) next;
        System.arraycopy(rest, 0, all, body.length + 1, rest.length);
        return all;
    }

    /**
     * The provider's request id of a response: {@code request-id} (Anthropic) or
     * {@code x-request-id}.
     * @param headers the response's headers
     * @return the id, or {@code null}
     */
    static @Nullable String requestId(Headers headers) {
        String id = headers.first("request-id");
        return (id != null) ? id : headers.first("x-request-id");
    }

}
