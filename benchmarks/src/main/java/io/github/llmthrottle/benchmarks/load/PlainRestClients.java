package io.github.llmthrottle.benchmarks.load;

import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

/**
 * The {@code RestClient} the non-llm-throttle contenders build on: the HTTP client Boot
 * would detect (the same one llm-throttle's client gets), the provider's base URL and API
 * key, no interceptor.
 */
final class PlainRestClients {

    private PlainRestClients() {
    }

    static RestClient create(String baseUrl) {
        return RestClient.builder()
            .baseUrl(baseUrl)
            .defaultHeader("x-api-key", "benchmark")
            .defaultHeader("anthropic-version", "2023-06-01")
            .requestFactory(ClientHttpRequestFactoryBuilder.detect().build())
            .build();
    }

    static String post(RestClient client, String body) {
        return client.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body(body)
            .retrieve()
            .body(String.class);
    }

}
