package io.github.llmthrottle.restclient;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import io.github.llmthrottle.client.ProviderResponse;
import io.github.llmthrottle.provider.Headers;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;

/**
 * A {@link ClientHttpResponse} as the call pipeline sees it. Status and status text are
 * read once, when the response arrives, so they stay available after the connection is
 * released.
 */
final class RestClientProviderResponse implements ProviderResponse {

    private final ClientHttpResponse response;

    private final HttpStatusCode statusCode;

    private final String statusText;

    RestClientProviderResponse(ClientHttpResponse response) throws IOException {
        this.response = response;
        this.statusCode = response.getStatusCode();
        this.statusText = response.getStatusText();
    }

    HttpStatusCode statusCode() {
        return this.statusCode;
    }

    String statusText() {
        return this.statusText;
    }

    HttpHeaders httpHeaders() {
        return this.response.getHeaders();
    }

    @Override
    public int status() {
        return this.statusCode.value();
    }

    @Override
    public Headers headers() {
        return this.response.getHeaders()::getOrEmpty;
    }

    @Override
    public InputStream body() throws IOException {
        return this.response.getBody();
    }

    @Override
    public void close() {
        this.response.close();
    }

    /**
     * Spring's own {@link HttpClientErrorException} or {@link HttpServerErrorException},
     * built exactly as {@code RestClient} would.
     */
    @Override
    public Exception toException(byte[] body) {
        return this.statusCode.is4xxClientError()
                ? HttpClientErrorException.create(this.statusCode, this.statusText, httpHeaders(), body,
                        StandardCharsets.UTF_8)
                : HttpServerErrorException.create(this.statusCode, this.statusText, httpHeaders(), body,
                        StandardCharsets.UTF_8);
    }

}
