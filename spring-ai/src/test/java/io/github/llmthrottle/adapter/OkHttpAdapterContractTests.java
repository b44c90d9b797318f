package io.github.llmthrottle.adapter;

import java.io.IOException;
import java.util.Map;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.okhttp.OkHttpThrottlingInterceptor;
import io.github.llmthrottle.springai.autoconfigure.LlmThrottleSpringAiAutoConfiguration;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

import org.springframework.context.ApplicationContext;

/**
 * The contract of every adapter, met by the OkHttp interceptor that throttles Spring AI's
 * provider SDKs. Its callers' priority and tenant arrive as the carrier headers Spring
 * AI's advisor puts on the request, which the interceptor reads and removes.
 */
class OkHttpAdapterContractTests extends AbstractAdapterContractTests {

    @Override
    protected Class<?>[] autoConfigurations() {
        return new Class<?>[] { LlmThrottleSpringAiAutoConfiguration.class };
    }

    @Override
    protected Dialect dialect() {
        return Dialect.ANTHROPIC;
    }

    @Override
    protected String send(ApplicationContext context, String baseUrl, boolean stream) throws IOException {
        return send(context, baseUrl, stream, Map.of());
    }

    @Override
    protected String sendAs(ApplicationContext context, String baseUrl, boolean stream, Priority priority,
            String tenant) throws IOException {
        return send(context, baseUrl, stream, Map.of(OkHttpThrottlingInterceptor.PRIORITY_HEADER, priority.name(),
                OkHttpThrottlingInterceptor.TENANT_HEADER, tenant));
    }

    private String send(ApplicationContext context, String baseUrl, boolean stream, Map<String, String> headers)
            throws IOException {
        OkHttpClient client = new OkHttpClient.Builder()
            .addInterceptor(context.getBean(OkHttpThrottlingInterceptor.class))
            .build();
        String body = """
                {"model":"%s","max_tokens":64,"stream":%s,"messages":[{"role":"user","content":"Hello"}]}"""
            .formatted(dialect().model(), stream);
        Request.Builder request = new Request.Builder().url(baseUrl + dialect().path())
            .post(RequestBody.create(body, MediaType.get("application/json")));
        if (stream) {
            request.header("Accept", "text/event-stream");
        }
        headers.forEach(request::header);
        try (Response response = client.newCall(request.build()).execute()) {
            // the Anthropic SDK under Spring AI turns an error status into its exception
            if (!response.isSuccessful()) {
                throw new IOException("HTTP " + response.code());
            }
            return response.body().string();
        }
    }

}
