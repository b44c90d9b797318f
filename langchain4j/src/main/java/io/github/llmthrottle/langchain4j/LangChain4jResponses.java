package io.github.llmthrottle.langchain4j;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.langchain4j.exception.HttpException;
import dev.langchain4j.http.client.HttpRequest;
import io.github.llmthrottle.client.ProviderTarget;
import io.github.llmthrottle.provider.Headers;

/**
 * How LangChain4j's HTTP types map onto the call pipeline's: a response's headers as the
 * pipeline reads them, a failure of the SPI's client as the response or I/O error the
 * pipeline classifies, and a request rebuilt for a deployment.
 */
final class LangChain4jResponses {

    private LangChain4jResponses() {
    }

    /**
     * A view of LangChain4j's headers (its maps are case insensitive).
     * @param headers the headers by name
     * @return the headers as the pipeline reads them
     */
    static Headers headers(Map<String, List<String>> headers) {
        return (name) -> {
            List<String> values = headers.get(name);
            return (values != null) ? values : List.of();
        };
    }

    /**
     * A failure of the SPI's client as the pipeline classifies it. An error response
     * reaches the SPI's caller as an {@link HttpException} with its status and body only
     * (the SPI drops its headers): it is handed back as that response, with the headers
     * recorded below the SPI where they could be, retried or not by its status and body.
     * An I/O error anywhere in the failure's causes is thrown as that I/O error, which
     * the pipeline retries; anything else is thrown as it is.
     * @param failure what the client threw or reported
     * @param headers the headers of the error response where they could be recorded (the
     * SPI drops them), else empty
     * @return the error response
     * @throws IOException the I/O error among the failure's causes
     */
    static LangChain4jResponse fromFailure(Throwable failure, Map<String, List<String>> headers) throws IOException {
        if (failure instanceof HttpException http) {
            String message = http.getMessage();
            return new BufferedResponse(http.statusCode(), headers,
                    ((message != null) ? message : "").getBytes(StandardCharsets.UTF_8));
        }
        for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                InterruptedIOException interrupted = new InterruptedIOException(
                        "Interrupted while waiting for a response");
                interrupted.initCause(failure);
                throw interrupted;
            }
        }
        if (failure instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        throw new IOException(failure);
    }

    /**
     * {@code request} as it goes to a deployment: the target's URI, the target's headers
     * replacing the request's of the same name (case insensitively) once the target's
     * removed headers are taken off; the body (or form data) unchanged.
     * @param request the request as the model built it
     * @param target where the attempt goes
     * @return the request to send
     */
    static HttpRequest redirected(HttpRequest request, ProviderTarget target) {
        Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.putAll(request.headers());
        target.removedHeaders().forEach(headers::remove);
        target.headers().forEach((name, value) -> headers.put(name, List.of(value)));
        return rebuilt(request, target.uri().toString(), headers);
    }

    /**
     * {@code request} with one more header, replacing any of the same name.
     * @param request the request
     * @param name the header name
     * @param value its value
     * @return the request to send
     */
    static HttpRequest withHeader(HttpRequest request, String name, String value) {
        Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.putAll(request.headers());
        headers.put(name, List.of(value));
        return rebuilt(request, request.url(), headers);
    }

    private static HttpRequest rebuilt(HttpRequest request, String url, Map<String, List<String>> headers) {
        return HttpRequest.builder()
            .method(request.method())
            .url(url)
            .headers(headers)
            .body(request.body())
            .formDataFields(request.formDataFields())
            .formDataFiles(request.formDataFiles())
            .build();
    }

    /** A response whose body is in memory. */
    private record BufferedResponse(int status, Map<String, List<String>> headerMap,
            byte[] bytes) implements LangChain4jResponse {

        @Override
        public InputStream body() {
            return new ByteArrayInputStream(this.bytes);
        }

        @Override
        public void close() {
        }

    }

}
