package io.github.llmthrottle.webclient;

import io.github.llmthrottle.client.ThrottledResponse;
import reactor.core.publisher.Flux;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.client.reactive.ClientHttpResponse;
import org.springframework.http.client.reactive.ClientHttpResponseDecorator;

/**
 * The response of a throttled call as the {@code WebClient} reads it: the provider's
 * status and headers, and a body that is either the bytes the pipeline read (a JSON
 * answer, an error) or the provider's live stream (of events, or NDJSON lines), passed on
 * chunk by chunk, never buffered, while its events or lines settle the call: reading it
 * to the end completes the call; cancelling it, or failing, ends it with what was read.
 */
final class ThrottledClientHttpResponse extends ClientHttpResponseDecorator {

    private final ThrottledResponse<WebClientProviderResponse> throttled;

    private ThrottledClientHttpResponse(ThrottledResponse<WebClientProviderResponse> throttled) {
        super(throttled.response().response());
        this.throttled = throttled;
    }

    /**
     * What the {@code WebClient} gets of a throttled call's final response.
     * @param throttled the pipeline's response
     * @return the response to hand to the {@code WebClient}
     */
    static ClientHttpResponse of(ThrottledResponse<WebClientProviderResponse> throttled) {
        return new ThrottledClientHttpResponse(throttled);
    }

    @Override
    public Flux<DataBuffer> getBody() {
        byte[] buffered = this.throttled.bufferedBody();
        if (buffered != null) {
            return Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(buffered)));
        }
        return this.throttled.response()
            .takeBody()
            .doOnNext(this::read)
            .doOnComplete(this.throttled::bodyCompleted)
            .doOnCancel(this.throttled::close)
            .doOnError((ex) -> this.throttled.close());
    }

    private void read(DataBuffer chunk) {
        try (DataBuffer.ByteBufferIterator buffers = chunk.readableByteBuffers()) {
            while (buffers.hasNext()) {
                this.throttled.chunkRead(buffers.next());
            }
        }
    }

}
