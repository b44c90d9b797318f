package io.github.llmthrottle.webclient;

import java.net.URI;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpCookie;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.reactive.AbstractClientHttpRequest;
import org.springframework.http.client.reactive.ClientHttpRequest;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;

/**
 * A request that a {@code WebClient} writes into memory instead of onto a connection: its
 * headers, cookies and body, captured once so that every attempt of a throttled call
 * replays them ({@link #replayOnto}) and the call pipeline reads the body (model, prompt,
 * {@code max_tokens}). A model call's body is a small JSON document.
 */
final class CapturedRequest extends AbstractClientHttpRequest {

    private static final byte[] NO_BODY = new byte[0];

    private final HttpMethod method;

    private final URI uri;

    private byte[] body = NO_BODY;

    CapturedRequest(HttpMethod method, URI uri) {
        this.method = method;
        this.uri = uri;
    }

    @Override
    public HttpMethod getMethod() {
        return this.method;
    }

    @Override
    public URI getURI() {
        return this.uri;
    }

    @Override
    public DataBufferFactory bufferFactory() {
        return DefaultDataBufferFactory.sharedInstance;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getNativeRequest() {
        return (T) this;
    }

    @Override
    public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
        return doCommit(() -> DataBufferUtils.join(body).doOnNext((joined) -> {
            byte[] bytes = new byte[joined.readableByteCount()];
            joined.read(bytes);
            DataBufferUtils.release(joined);
            this.body = bytes;
        }).then());
    }

    @Override
    public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
        return writeWith(Flux.from(body).concatMap(Flux::from));
    }

    @Override
    public Mono<Void> setComplete() {
        return doCommit();
    }

    @Override
    protected void applyHeaders() {
        // kept here, replayed onto each attempt
    }

    @Override
    protected void applyCookies() {
        // kept here, replayed onto each attempt
    }

    /**
     * The body the {@code WebClient} wrote.
     * @return the bytes, empty when it wrote none
     */
    byte[] body() {
        return this.body;
    }

    /**
     * Writes this request onto one attempt's real request.
     * @param request the attempt's request
     * @param headers the headers to send
     * @return completes when written
     */
    Mono<Void> replayOnto(ClientHttpRequest request, HttpHeaders headers) {
        request.getHeaders().putAll(headers);
        MultiValueMap<String, HttpCookie> cookies = new LinkedMultiValueMap<>(getCookies());
        request.getCookies().addAll(cookies);
        request.getAttributes().putAll(getAttributes());
        if (this.body.length == 0) {
            return request.setComplete();
        }
        return request.writeWith(Mono.fromSupplier(() -> request.bufferFactory().wrap(this.body)));
    }

}
