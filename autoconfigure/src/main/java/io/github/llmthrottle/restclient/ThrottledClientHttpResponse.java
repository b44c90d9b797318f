package io.github.llmthrottle.restclient;

import java.io.IOException;
import java.io.InputStream;

import io.github.llmthrottle.client.ThrottledResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

/**
 * What the {@code RestClient} gets back from the call pipeline: the provider's status and
 * headers, and the body the pipeline hands out (read into memory, or the live stream
 * settled as it is read).
 */
final class ThrottledClientHttpResponse implements ClientHttpResponse {

    private final ThrottledResponse<RestClientProviderResponse> response;

    ThrottledClientHttpResponse(ThrottledResponse<RestClientProviderResponse> response) {
        this.response = response;
    }

    @Override
    public HttpStatusCode getStatusCode() {
        return this.response.response().statusCode();
    }

    @Override
    public String getStatusText() {
        return this.response.response().statusText();
    }

    @Override
    public HttpHeaders getHeaders() {
        return this.response.response().httpHeaders();
    }

    @Override
    public InputStream getBody() throws IOException {
        return this.response.body();
    }

    @Override
    public void close() {
        this.response.close();
    }

}
