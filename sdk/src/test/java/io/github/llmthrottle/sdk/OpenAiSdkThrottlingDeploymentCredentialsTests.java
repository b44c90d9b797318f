package io.github.llmthrottle.sdk;

import java.util.Map;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientImpl;
import com.openai.client.okhttp.OkHttpClient;
import com.openai.core.ClientOptions;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.github.llmthrottle.client.AbstractDeploymentCredentialsTests;
import io.github.llmthrottle.sdk.autoconfigure.LlmThrottleSdkAutoConfiguration;

import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The caller's credentials on an attempt the {@code openai-java} SDK hook sends to a
 * deployment: the SDK's own key and the headers and query parameters of its client.
 */
class OpenAiSdkThrottlingDeploymentCredentialsTests extends AbstractDeploymentCredentialsTests {

    @Override
    protected Class<?>[] autoConfigurations() {
        return new Class<?>[] { LlmThrottleSdkAutoConfiguration.class };
    }

    @Override
    protected void send(ApplicationContext context, String baseUrl, Map<String, String> headers,
            Map<String, String> query) {
        OpenAiSdkThrottling throttling = context.getBean(OpenAiSdkThrottling.class);
        ClientOptions.Builder options = ClientOptions.builder()
            .baseUrl(baseUrl)
            .apiKey("caller-key")
            .httpClient(throttling.httpClient("openai", OkHttpClient.builder().build()))
            .maxRetries(0);
        headers.forEach(options::replaceHeaders);
        query.forEach(options::replaceQueryParams);
        OpenAIClient client = new OpenAIClientImpl(options.build());
        assertThat(client.chat()
            .completions()
            .create(ChatCompletionCreateParams.builder()
                .model(MODEL)
                .maxCompletionTokens(16)
                .addUserMessage("Hello")
                .build())
            .choices()).isNotEmpty();
    }

}
