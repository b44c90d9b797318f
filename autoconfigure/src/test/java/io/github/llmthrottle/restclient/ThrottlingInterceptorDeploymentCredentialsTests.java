package io.github.llmthrottle.restclient;

import java.util.Map;

import io.github.llmthrottle.client.AbstractDeploymentCredentialsTests;

import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The caller's credentials on an attempt the {@code RestClient} interceptor sends to a
 * deployment.
 */
class ThrottlingInterceptorDeploymentCredentialsTests extends AbstractDeploymentCredentialsTests {

    @Override
    protected void send(ApplicationContext context, String baseUrl, Map<String, String> headers,
            Map<String, String> query) {
        String answer = context.getBean("openaiRestClient", RestClient.class)
            .post()
            .uri(baseUrl + "/chat/completions", (uri) -> {
                query.forEach(uri::queryParam);
                return uri.build();
            })
            .headers((sent) -> headers.forEach(sent::set))
            .contentType(MediaType.APPLICATION_JSON)
            .body(BODY)
            .retrieve()
            .body(String.class);
        assertThat(answer).contains("chatcmpl-1");
    }

}
