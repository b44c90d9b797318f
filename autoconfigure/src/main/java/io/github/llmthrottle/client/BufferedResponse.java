package io.github.llmthrottle.client;

import java.io.ByteArrayInputStream;
import java.io.InputStream;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

/**
 * A response whose body has been read into memory (error bodies, and non-streaming bodies whose
 * usage settles the token reservation), so that the connection is released at once and the caller
 * still sees the body.
 */
final class BufferedResponse implements ClientHttpResponse {

    private final HttpStatusCode status;

    private final String statusText;

    private final HttpHeaders headers;

    private final byte[] body;

    BufferedResponse(HttpStatusCode status, String statusText, HttpHeaders headers, byte[] body) {
        this.status = status;
        this.statusText = statusText;
        this.headers = headers;
        this.body = body;
    }

    @Override
    public HttpStatusCode getStatusCode() {
        return this.status;
    }

    @Override
    public String getStatusText() {
        return this.statusText;
    }

    @Override
    public HttpHeaders getHeaders() {
        return this.headers;
    }

    @Override
    public InputStream getBody() {
        return new ByteArrayInputStream(this.body);
    }

    byte[] bodyBytes() {
        return this.body;
    }

    @Override
    public void close() {
    }

}
