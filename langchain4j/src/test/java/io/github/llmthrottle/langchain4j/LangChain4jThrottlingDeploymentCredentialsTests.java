package io.github.llmthrottle.langchain4j;

import java.util.Map;
import java.util.stream.Collectors;

import dev.langchain4j.http.client.HttpMethod;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.jdk.JdkHttpClient;
import io.github.llmthrottle.client.AbstractDeploymentCredentialsTests;
import io.github.llmthrottle.langchain4j.autoconfigure.LlmThrottleLangChain4jAutoConfiguration;

import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The caller's credentials on an attempt the LangChain4j hook sends to a deployment.
 */
class LangChain4jThrottlingDeploymentCredentialsTests extends AbstractDeploymentCredentialsTests {

    @Override
    protected Class<?>[] autoConfigurations() {
        return new Class<?>[] { LlmThrottleLangChain4jAutoConfiguration.class };
    }

    @Override
    protected void send(ApplicationContext context, String baseUrl, Map<String, String> headers,
            Map<String, String> query) {
        String url = baseUrl + "/chat/completions?"
                + query.entrySet()
                    .stream()
                    .map((parameter) -> parameter.getKey() + "=" + parameter.getValue())
                    .collect(Collectors.joining("&"));
        HttpRequest.Builder request = HttpRequest.builder()
            .method(HttpMethod.POST)
            .url(url)
            .addHeader("Content-Type", "application/json")
            .body(BODY);
        headers.forEach((name, value) -> request.addHeader(name, value));
        var client = context.getBean(LangChain4jThrottling.class)
            .httpClientBuilder("openai", JdkHttpClient.builder())
            .build();
        assertThat(client.execute(request.build()).statusCode()).isEqualTo(200);
    }

}
