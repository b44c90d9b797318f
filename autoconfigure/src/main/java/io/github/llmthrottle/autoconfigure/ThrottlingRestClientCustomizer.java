package io.github.llmthrottle.autoconfigure;

import io.github.llmthrottle.restclient.ThrottlingInterceptor;

import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.web.client.RestClient;

/**
 * Adds the {@link ThrottlingInterceptor} to every {@code RestClient.Builder} Boot hands
 * out, so that requests any RestClient sends to a configured client's base URL are
 * throttled too.
 */
final class ThrottlingRestClientCustomizer implements RestClientCustomizer {

    private final ThrottlingInterceptor interceptor;

    ThrottlingRestClientCustomizer(ThrottlingInterceptor interceptor) {
        this.interceptor = interceptor;
    }

    @Override
    public void customize(RestClient.Builder builder) {
        builder.requestInterceptors((interceptors) -> {
            if (interceptors.stream().noneMatch(ThrottlingInterceptor.class::isInstance)) {
                interceptors.add(this.interceptor);
            }
        });
    }

}
