package io.github.llmthrottle.client;

import java.io.IOException;

import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * The interceptor that throttles every request a {@code RestClient} sends to a configured
 * client: requests carrying the {@link #CLIENT_ATTRIBUTE} attribute (set by the client's own
 * {@code NAMERestClient}) or addressed to a configured base URL go through admission, retry and
 * calibration; every other request passes through untouched.
 */
public final class ThrottlingInterceptor implements ClientHttpRequestInterceptor {

    /** Request attribute naming the configured client a request belongs to. */
    public static final String CLIENT_ATTRIBUTE = ThrottlingInterceptor.class.getName() + ".client";

    private final LlmThrottleRegistry registry;

    public ThrottlingInterceptor(LlmThrottleRegistry registry) {
        this.registry = registry;
    }

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        ThrottledClient client = this.registry.resolve(request);
        if (client == null) {
            return execution.execute(request, body);
        }
        return client.exchange(request, body, execution);
    }

}
