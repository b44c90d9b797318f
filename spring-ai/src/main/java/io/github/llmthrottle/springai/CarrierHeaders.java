package io.github.llmthrottle.springai;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.llmthrottle.okhttp.CallerThrottleParameters;
import io.github.llmthrottle.okhttp.OkHttpThrottlingInterceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.anthropic.AnthropicChatOptions;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.util.ClassUtils;

/**
 * Puts a call's priority, tenant and (inside a {@code @Throttled} invocation) max-wait
 * and client into the per-request HTTP headers of its chat options
 * ({@code AnthropicChatOptions.httpHeaders}, {@code OpenAiChatOptions.customHeaders}), as
 * the carrier headers {@link OkHttpThrottlingInterceptor} reads and removes: unlike a
 * thread-local, they reach the interceptor on the threads a {@code stream()} hops to.
 * Each provider's options type is touched only when its module is on the classpath.
 */
final class CarrierHeaders {

    private static final boolean ANTHROPIC_PRESENT = ClassUtils
        .isPresent("org.springframework.ai.anthropic.AnthropicChatOptions", CarrierHeaders.class.getClassLoader());

    private static final boolean OPENAI_PRESENT = ClassUtils
        .isPresent("org.springframework.ai.openai.OpenAiChatOptions", CarrierHeaders.class.getClassLoader());

    private CarrierHeaders() {
    }

    /**
     * {@code options} with the carrier headers of {@code parameters} added.
     * @param options the call's chat options
     * @param parameters the call's priority and tenant
     * @return the new options, or {@code options} itself when they are of a provider
     * whose requests this cannot carry headers for
     */
    static ChatOptions add(ChatOptions options, CallerThrottleParameters parameters) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(OkHttpThrottlingInterceptor.PRIORITY_HEADER, parameters.priority().name());
        if (parameters.tenant() != null) {
            headers.put(OkHttpThrottlingInterceptor.TENANT_HEADER, parameters.tenant());
        }
        if (parameters.maxWait() != null) {
            headers.put(OkHttpThrottlingInterceptor.MAX_WAIT_HEADER, parameters.maxWait().toString());
        }
        if (parameters.client() != null) {
            headers.put(OkHttpThrottlingInterceptor.CLIENT_HEADER, parameters.client());
        }
        if (ANTHROPIC_PRESENT && Anthropic.accepts(options)) {
            return Anthropic.add(options, headers);
        }
        if (OPENAI_PRESENT && OpenAi.accepts(options)) {
            return OpenAi.add(options, headers);
        }
        return options;
    }

    private static Map<String, String> merged(@Nullable Map<String, String> existing, Map<String, String> added) {
        Map<String, String> merged = new LinkedHashMap<>();
        if (existing != null) {
            merged.putAll(existing);
        }
        merged.putAll(added);
        return merged;
    }

    /** Loaded only when Spring AI's Anthropic module is present. */
    private static final class Anthropic {

        static boolean accepts(ChatOptions options) {
            return options instanceof AnthropicChatOptions;
        }

        static ChatOptions add(ChatOptions options, Map<String, String> headers) {
            AnthropicChatOptions anthropic = (AnthropicChatOptions) options;
            return anthropic.mutate().httpHeaders(merged(anthropic.getHttpHeaders(), headers)).build();
        }

    }

    /** Loaded only when Spring AI's OpenAI module is present. */
    private static final class OpenAi {

        static boolean accepts(ChatOptions options) {
            return options instanceof OpenAiChatOptions;
        }

        static ChatOptions add(ChatOptions options, Map<String, String> headers) {
            OpenAiChatOptions openAi = (OpenAiChatOptions) options;
            return openAi.mutate().customHeaders(merged(openAi.getCustomHeaders(), headers)).build();
        }

    }

}
