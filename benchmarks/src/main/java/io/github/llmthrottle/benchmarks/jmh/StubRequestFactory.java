package io.github.llmthrottle.benchmarks.jmh;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.AbstractBufferingClientHttpRequest;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpResponse;

/**
 * An HTTP client without a socket: every request gets the same canned Anthropic 200
 * response, with the full rate-limit header set and a {@code usage} block, so that a
 * benchmark measures what happens around the exchange and nothing of the network. The
 * reported limits are far above what a benchmark can use, so that calibration never makes
 * the limiter bind.
 */
final class StubRequestFactory implements ClientHttpRequestFactory {

    static final long LIMIT = 10_000_000_000L;

    private static final byte[] BODY = ("{\"id\":\"msg_01XFDUDYJgAACzvnptvVoYEL\",\"type\":\"message\",\"role\":\"assistant\","
            + "\"model\":\"claude-sonnet-4-5\",\"content\":[{\"type\":\"text\",\"text\":\"Three points: the limit is shared "
            + "by every caller; requests wait for tokens before they are sent; retries honour what the provider asks.\"}],"
            + "\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":512,"
            + "\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"output_tokens\":50}}")
        .getBytes(java.nio.charset.StandardCharsets.UTF_8);

    private final HttpHeaders headers = anthropicHeaders();

    @Override
    public ClientHttpRequest createRequest(URI uri, HttpMethod httpMethod) {
        return new StubRequest(uri, httpMethod, this.headers);
    }

    /**
     * The header set of a real Anthropic 200 response, with limits of {@link #LIMIT}.
     * @return the headers
     */
    static HttpHeaders anthropicHeaders() {
        String reset = Instant.now().plusSeconds(1).truncatedTo(ChronoUnit.SECONDS).toString();
        HttpHeaders headers = new HttpHeaders();
        headers.set("date", "Thu, 21 Aug 2025 12:40:58 GMT");
        headers.set("content-type", "application/json");
        headers.set("content-length", String.valueOf(BODY.length));
        headers.set("connection", "keep-alive");
        for (String dimension : new String[] { "requests", "tokens", "input-tokens", "output-tokens" }) {
            headers.set("anthropic-ratelimit-" + dimension + "-limit", String.valueOf(LIMIT));
            headers.set("anthropic-ratelimit-" + dimension + "-remaining", String.valueOf(LIMIT - 1000));
            headers.set("anthropic-ratelimit-" + dimension + "-reset", reset);
        }
        headers.set("request-id", "req_011CSLsW7mFqvHHnzrKdKjAE");
        headers.set("strict-transport-security", "max-age=31536000; includeSubDomains; preload");
        headers.set("anthropic-organization-id", "36562039-0e8c-4d3f-9c2a-3b2f1d0e5a7b");
        headers.set("via", "1.1 google");
        headers.set("cf-cache-status", "DYNAMIC");
        headers.set("x-robots-tag", "none");
        headers.set("server", "cloudflare");
        headers.set("cf-ray", "97283a2f8d1e5b7c-FRA");
        return headers;
    }

    private static final class StubRequest extends AbstractBufferingClientHttpRequest {

        private final URI uri;

        private final HttpMethod method;

        private final HttpHeaders responseHeaders;

        StubRequest(URI uri, HttpMethod method, HttpHeaders responseHeaders) {
            this.uri = uri;
            this.method = method;
            this.responseHeaders = responseHeaders;
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
        protected ClientHttpResponse executeInternal(HttpHeaders headers, byte[] bufferedOutput) {
            return new StubResponse(this.responseHeaders);
        }

    }

    private static final class StubResponse implements ClientHttpResponse {

        private final HttpHeaders headers;

        StubResponse(HttpHeaders template) {
            // a real client builds fresh headers for every response
            this.headers = new HttpHeaders();
            this.headers.putAll(template);
        }

        @Override
        public HttpStatusCode getStatusCode() {
            return HttpStatus.OK;
        }

        @Override
        public String getStatusText() {
            return "OK";
        }

        @Override
        public HttpHeaders getHeaders() {
            return this.headers;
        }

        @Override
        public InputStream getBody() {
            return new ByteArrayInputStream(BODY);
        }

        @Override
        public void close() {
        }

    }

}
