package io.github.llmthrottle.okhttp;

import java.util.Map;

import io.github.llmthrottle.client.AbstractDeploymentCredentialsTests;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The caller's credentials on an attempt the OkHttp interceptor sends to a deployment.
 */
class OkHttpThrottlingInterceptorDeploymentCredentialsTests extends AbstractDeploymentCredentialsTests {

    @Override
    protected void send(ApplicationContext context, String baseUrl, Map<String, String> headers,
            Map<String, String> query) throws Exception {
        OkHttpClient client = new OkHttpClient.Builder()
            .addInterceptor(new OkHttpThrottlingInterceptor(context.getBean(LlmThrottleRegistry.class)))
            .build();
        HttpUrl.Builder url = HttpUrl.get(baseUrl + "/chat/completions").newBuilder();
        query.forEach(url::addQueryParameter);
        Request.Builder request = new Request.Builder().url(url.build())
            .post(RequestBody.create(BODY, MediaType.get("application/json")));
        headers.forEach(request::header);
        try (Response response = client.newCall(request.build()).execute()) {
            assertThat(response.code()).isEqualTo(200);
        }
    }

}
