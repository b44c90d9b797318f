package io.github.llmthrottle.webclient;

import java.io.InputStream;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.llmthrottle.client.ProviderResponse;
import io.github.llmthrottle.provider.Headers;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.client.reactive.ClientHttpResponse;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * A reactive connector's response as the call pipeline sees it: status and headers at
 * once; its body, a {@code Flux} that may be subscribed once, either read whole by the
 * pipeline ({@link #readBody}) or passed on to the caller ({@link #takeBody()}), until
 * the client expires it idle ({@link #expired}).
 */
final class WebClientProviderResponse implements ProviderResponse {

    private final ClientHttpResponse response;

    private final AtomicBoolean bodyTaken = new AtomicBoolean();

    /** Signals that the stream expired idle. */
    private final Sinks.One<Duration> expired = Sinks.one();

    /** How long the stream was idle when it expired, once it has. */
    private volatile @Nullable Duration idleFor;

    WebClientProviderResponse(ClientHttpResponse response) {
        this.response = response;
    }

    ClientHttpResponse response() {
        return this.response;
    }

    @Override
    public int status() {
        return this.response.getStatusCode().value();
    }

    @Override
    public Headers headers() {
        return this.response.getHeaders()::getOrEmpty;
    }

    /**
     * Not read by the asynchronous pipeline: the body is a {@code Flux}.
     * @return never
     */
    @Override
    public InputStream body() {
        throw new UnsupportedOperationException("The body of a WebClient response is read as a Flux");
    }

    /**
     * The body, for its one reader.
     * @return the body
     */
    Flux<DataBuffer> takeBody() {
        if (!this.bodyTaken.compareAndSet(false, true)) {
            return Flux.error(new IllegalStateException("The body of this response was already read"));
        }
        // cut when the stream expires idle: the connection's body is cancelled (the
        // connection closed), and the caller told why
        return this.response.getBody().takeUntilOther(this.expired.asMono()).concatWith(Mono.defer(() -> {
            Duration idle = this.idleFor;
            return (idle != null) ? idle(idle) : Mono.empty();
        }));
    }

    /**
     * Reads the body, up to {@code limit} bytes (the rest is not read: the connection is
     * released).
     * @param limit the most bytes to keep
     * @return the bytes
     */
    CompletableFuture<byte[]> readBody(int limit) {
        Flux<DataBuffer> body = takeBody();
        if (limit < Integer.MAX_VALUE) {
            body = DataBufferUtils.takeUntilByteCount(body, limit);
        }
        return DataBufferUtils.join(body).map((joined) -> {
            byte[] bytes = new byte[joined.readableByteCount()];
            joined.read(bytes);
            DataBufferUtils.release(joined);
            return bytes;
        }).defaultIfEmpty(new byte[0]).toFuture();
    }

    /**
     * The caller neither read nor cancelled the body for longer than the client's read
     * timeout: the body is cancelled, and its reader fails with an error that says so.
     * @param idle how long nothing was read
     */
    @Override
    public void expired(Duration idle) {
        close();
        this.idleFor = idle;
        this.expired.tryEmitValue(idle);
    }

    private static Mono<DataBuffer> idle(Duration idle) {
        BigDecimal seconds = BigDecimal.valueOf(idle.toMillis(), 3).stripTrailingZeros();
        return Mono.error(new TimeoutException("The streamed answer went idle for " + seconds.toPlainString()
                + " s, longer than the client's read timeout: its connection was closed and its call settled"));
    }

    /** Releases a body nobody read: the connection goes back, or is closed. */
    @Override
    public void close() {
        if (this.bodyTaken.compareAndSet(false, true)) {
            this.response.getBody().subscribe(DataBufferUtils::release, (ex) -> {
            });
        }
    }

    @Override
    public Exception toException(byte[] body) {
        return WebClientResponseException.create(this.response.getStatusCode(),
                this.response.getStatusCode().toString(), this.response.getHeaders(), body, null, null);
    }

}
