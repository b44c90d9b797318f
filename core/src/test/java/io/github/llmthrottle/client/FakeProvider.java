package io.github.llmthrottle.client;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.provider.Headers;

/**
 * A transport for the call pipeline's tests, with no HTTP server: each attempt takes the
 * next scripted response (or I/O error) and is counted.
 */
final class FakeProvider implements ProviderExchange<FakeProvider.Response> {

    private final Deque<Object> script = new ArrayDeque<>();

    private final List<Response> sent = new ArrayList<>();

    int attempts;

    FakeProvider then(int status, String body, String... headers) {
        this.script.add(new Response(status, body, headers));
        return this;
    }

    FakeProvider thenIoError(String message) {
        this.script.add(new IOException(message));
        return this;
    }

    /**
     * The caller cancels during the exchange: its thread is interrupted, the client gives
     * up.
     */
    FakeProvider thenCancelled() {
        this.script.add(new InterruptedIOException("Request interrupted"));
        return this;
    }

    /** A response whose body breaks off after its first bytes. */
    FakeProvider thenBrokenBody(int status, String body, String... headers) {
        Response response = new Response(status, body, headers);
        response.broken = true;
        this.script.add(response);
        return this;
    }

    List<Response> sent() {
        return this.sent;
    }

    @Override
    public Response execute() throws IOException {
        this.attempts++;
        Object next = this.script.poll();
        if (next == null) {
            throw new IllegalStateException("No response scripted for attempt " + this.attempts);
        }
        if (next instanceof InterruptedIOException ex) {
            Thread.currentThread().interrupt();
            throw ex;
        }
        if (next instanceof IOException ex) {
            throw ex;
        }
        Response response = (Response) next;
        this.sent.add(response);
        return response;
    }

    /** A scripted response. */
    static final class Response implements ProviderResponse {

        private final int status;

        private final byte[] body;

        private final Map<String, List<String>> headers = new LinkedHashMap<>();

        boolean closed;

        boolean broken;

        Response(int status, String body, String... headers) {
            this.status = status;
            this.body = body.getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < headers.length; i += 2) {
                this.headers.put(headers[i], List.of(headers[i + 1]));
            }
        }

        @Override
        public int status() {
            return this.status;
        }

        @Override
        public Headers headers() {
            return Headers.of(this.headers);
        }

        @Override
        public InputStream body() {
            if (this.broken) {
                return new SequenceInputStream(new ByteArrayInputStream(this.body, 0, this.body.length / 2),
                        new InputStream() {

                            @Override
                            public int read() throws IOException {
                                throw new IOException("Connection reset");
                            }

                        });
            }
            return new ByteArrayInputStream(this.body);
        }

        @Override
        public void close() {
            this.closed = true;
        }

    }

}
