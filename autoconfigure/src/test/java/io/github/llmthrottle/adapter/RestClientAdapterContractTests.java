package io.github.llmthrottle.adapter;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

/**
 * The contract of every adapter, met by the throttled {@code RestClient} of a configured
 * client ({@code anthropicRestClient}), whose request factory throttles each exchange.
 */
class RestClientAdapterContractTests extends AbstractAdapterContractTests {

    @Override
    protected Dialect dialect() {
        return Dialect.ANTHROPIC;
    }

    @Override
    protected String send(ApplicationContext context, String baseUrl, boolean stream) {
        RestClient client = context.getBean("anthropicRestClient", RestClient.class);
        String body = """
                {"model":"%s","max_tokens":64,"stream":%s,"messages":[{"role":"user","content":"Hello"}]}"""
            .formatted(dialect().model(), stream);
        RestClient.RequestBodySpec request = client.post()
            .uri(baseUrl + dialect().path())
            .contentType(MediaType.APPLICATION_JSON)
            .header("anthropic-version", "2023-06-01");
        if (!stream) {
            return request.body(body).retrieve().body(String.class);
        }
        return request.accept(MediaType.TEXT_EVENT_STREAM).body(body).exchange((sent, response) -> {
            try (InputStream in = response.getBody()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        });
    }

}
