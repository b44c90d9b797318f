package io.github.llmthrottle.langchain4j;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpMethod;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.SuccessfulHttpResponse;
import dev.langchain4j.http.client.sse.ServerSentEventListener;
import dev.langchain4j.http.client.sse.ServerSentEventParser;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of {@link StreamHandoff}: the push of a LangChain4j client turned into a response
 * the call pipeline pulls from.
 */
class StreamHandoffTests {

    @Test
    void aClientThatParsesOnTheCallingThreadDoesNotHangTheAttempt() throws Exception {
        HttpClient synchronous = new HttpClient() {
            @Override
            public SuccessfulHttpResponse execute(HttpRequest request) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void execute(HttpRequest request, ServerSentEventParser parser, ServerSentEventListener listener) {
                // as JdkHttpClient does when the response came before thenAccept was
                // attached
                listener.onOpen(SuccessfulHttpResponse.builder().statusCode(200).headers(Map.of()).build());
                parser.parse(new ByteArrayInputStream("data: x\n\n".getBytes(StandardCharsets.UTF_8)), listener);
                listener.onClose();
            }
        };
        HttpRequest request = HttpRequest.builder()
            .method(HttpMethod.POST)
            .url("http://localhost:1/v1/messages")
            .body("{}")
            .build();
        CompletableFuture<LangChain4jResponse> sent = CompletableFuture.supplyAsync(() -> {
            try {
                return StreamHandoff.send(synchronous, request, AttemptHeaders.NONE);
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        });
        // generous: on the old code it never returned
        try (LangChain4jResponse response = sent.get(30, TimeUnit.SECONDS)) {
            assertThat(response.status()).isEqualTo(200);
            assertThat(new String(response.body().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("data: x\n\n");
        }
    }

}
