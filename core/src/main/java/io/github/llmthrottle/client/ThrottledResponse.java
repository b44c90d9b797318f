package io.github.llmthrottle.client;

import java.io.ByteArrayInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

import io.github.llmthrottle.provider.Headers;
import org.jspecify.annotations.Nullable;

/**
 * What the call pipeline returns to an adapter: the provider's final response (status and
 * headers as the HTTP library returned them) and the body the caller reads. A
 * non-streamed body has been read into memory (its usage settled the reservation, and the
 * connection is free); a streamed body is the provider's live stream, settled from its
 * events as the caller reads, until the caller reaches its end or closes it.
 *
 * @param <R> the adapter's response type
 */
public final class ThrottledResponse<R extends ProviderResponse> implements Closeable {

    private final R response;

    private final byte @Nullable [] buffered;

    private final @Nullable StreamSettlement stream;

    private ThrottledResponse(R response, byte @Nullable [] buffered, @Nullable StreamSettlement stream) {
        this.response = response;
        this.buffered = buffered;
        this.stream = stream;
    }

    static <R extends ProviderResponse> ThrottledResponse<R> buffered(R response, byte[] body) {
        return new ThrottledResponse<>(response, body, null);
    }

    static <R extends ProviderResponse> ThrottledResponse<R> streamed(R response, StreamSettlement stream) {
        return new ThrottledResponse<>(response, null, stream);
    }

    /**
     * A response whose body is the provider's own, read by the caller as it arrives with
     * nothing settled from it (a request that is not a model call).
     * @param <R> the adapter's response type
     * @param response the response
     * @return the response, its body unread
     */
    static <R extends ProviderResponse> ThrottledResponse<R> unsettled(R response) {
        return new ThrottledResponse<>(response, null, null);
    }

    /**
     * The provider's response as the adapter's HTTP library returned it. Read its status
     * and headers; read the body through {@link #body()}.
     * @return the response
     */
    public R response() {
        return this.response;
    }

    /**
     * The HTTP status.
     * @return the status
     */
    public int status() {
        return this.response.status();
    }

    /**
     * The response headers.
     * @return the headers
     */
    public Headers headers() {
        return this.response.headers();
    }

    /**
     * Whether the body is the provider's live stream rather than bytes in memory.
     * @return {@code true} for a streamed body
     */
    public boolean isStreamed() {
        return this.buffered == null;
    }

    /**
     * The body read into memory.
     * @return the bytes, or {@code null} for a streamed body
     */
    public byte @Nullable [] bufferedBody() {
        return this.buffered;
    }

    /**
     * The body the caller reads: the same stream on every call for a streamed body, a new
     * stream over the bytes otherwise.
     * @return the body
     * @throws IOException when a streamed body cannot be opened
     */
    public InputStream body() throws IOException {
        if (this.stream != null) {
            return this.stream.body();
        }
        if (this.buffered == null) {
            return this.response.body();
        }
        return new ByteArrayInputStream(this.buffered);
    }

    /**
     * For an adapter that passes a streamed body on to its caller itself, chunk by chunk
     * as its HTTP library delivers them (a reactive one), instead of through
     * {@link #body()}: the caller read {@code chunk}, whose events settle the call as
     * {@link #body()} would. Does nothing for a body that is not streamed.
     * @param chunk the bytes read, its position left as it was
     */
    public void chunkRead(ByteBuffer chunk) {
        if (this.stream != null) {
            this.stream.chunk(chunk);
        }
    }

    /**
     * For an adapter that passes a streamed body on itself: the caller read the body to
     * its end. A caller that stops reading before is reported by {@link #close()}.
     */
    public void bodyCompleted() {
        if (this.stream != null) {
            this.stream.completed();
        }
    }

    /**
     * Ends the response: a streamed body is closed and settled with what was read of it.
     */
    @Override
    public void close() {
        if (this.stream != null) {
            this.stream.close();
        }
        else if (this.buffered == null) {
            this.response.close();
        }
    }

}
