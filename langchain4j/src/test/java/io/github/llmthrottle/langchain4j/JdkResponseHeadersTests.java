package io.github.llmthrottle.langchain4j;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import com.sun.net.httpserver.HttpServer;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpMethod;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.http.client.jdk.JdkHttpClientBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The headers of LangChain4j's JDK client's error responses, recorded below it, against a
 * loopback server that answers every request with a 429 and {@code retry-after: 7}.
 */
class JdkResponseHeadersTests {

    private HttpServer server;

    private final List<Map<String, List<String>>> received = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        this.server.createContext("/", (exchange) -> {
            this.received.add(Map.copyOf(exchange.getRequestHeaders()));
            byte[] body = "{\"error\":{\"type\":\"rate_limit_error\"}}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("retry-after", "7");
            exchange.sendResponseHeaders(429, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        this.server.start();
    }

    @AfterEach
    void stop() {
        this.server.stop(0);
    }

    @Test
    void theHeadersOfAnAttemptsErrorResponseAreRecordedAndItsMarkIsNeverSent() {
        JdkResponseHeaders headers = new JdkResponseHeaders();
        HttpClient client = headers.build(JdkHttpClient.builder());
        try (AttemptHeaders attempt = headers.open()) {
            assertThatThrownBy(() -> client.execute(attempt.tag(request()))).isInstanceOfSatisfying(HttpException.class,
                    (ex) -> assertThat(ex.statusCode()).isEqualTo(429));
            assertThat(LangChain4jResponses.headers(attempt.recorded()).first("Retry-After")).isEqualTo("7");
        }
        assertThat(this.received).hasSize(1);
        assertThat(this.received.get(0).keySet()).noneMatch(JdkResponseHeaders.ATTEMPT_HEADER::equalsIgnoreCase)
            .anyMatch("X-Caller"::equalsIgnoreCase);
    }

    @Test
    void aResponseOfAnAttemptThatWasClosedIsNotRecorded() {
        JdkResponseHeaders headers = new JdkResponseHeaders();
        HttpClient client = headers.build(JdkHttpClient.builder());
        AttemptHeaders attempt = headers.open();
        HttpRequest tagged = attempt.tag(request());
        attempt.close();
        assertThatThrownBy(() -> client.execute(tagged)).isInstanceOf(HttpException.class);
        assertThat(attempt.recorded()).isEmpty();
        assertThat(this.received.get(0).keySet()).noneMatch(JdkResponseHeaders.ATTEMPT_HEADER::equalsIgnoreCase);
    }

    @Test
    void theUsersBuilderIsLeftAsItWas() {
        java.net.http.HttpClient.Builder own = java.net.http.HttpClient.newBuilder();
        JdkHttpClientBuilder builder = JdkHttpClient.builder().httpClientBuilder(own);
        new JdkResponseHeaders().build(builder);
        assertThat(builder.httpClientBuilder()).isSameAs(own);
        JdkHttpClientBuilder defaults = JdkHttpClient.builder();
        new JdkResponseHeaders().build(defaults);
        assertThat(defaults.httpClientBuilder()).isNull();
    }

    private HttpRequest request() {
        return HttpRequest.builder()
            .method(HttpMethod.POST)
            .url("http://127.0.0.1:" + this.server.getAddress().getPort() + "/v1/messages")
            .addHeader("X-Caller", "test")
            .body("{}")
            .build();
    }

}
