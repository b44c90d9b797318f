package io.github.llmthrottle.routing;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.llmthrottle.FallbackOn;
import org.jspecify.annotations.Nullable;

/**
 * Recognises a provider's refusal of a request ({@link FallbackOn}) in what an invocation
 * threw, whatever library made the call: each one surfaces the provider's error body in
 * its exception (Spring's {@code RestClientResponseException} and Spring AI's
 * {@code NonTransientAiException} in their message, the official SDKs'
 * {@code BadRequestException}s as {@code "400: {body}"}, LangChain4j's
 * {@code HttpException} as its message, the core's own {@code ProviderResponseException}
 * as {@code "HTTP 400: {body}"}). The codes and texts read are those of the Anthropic and
 * OpenAI-compatible error envelopes; a successful status is never a refusal.
 */
public final class ProviderRefusals {

    private static final int MAX_CAUSE_DEPTH = 32;

    private static final int MAX_TEXT = 64 * 1024;

    private static final List<String> CONTEXT_LENGTH = List.of("context_length_exceeded", "prompt is too long",
            "maximum context length", "input is too long for the model");

    private static final List<String> CONTENT_POLICY = List.of("content_policy_violation", "content_filter",
            "responsibleaipolicyviolation");

    private static final List<String> QUOTA = List.of("insufficient_quota", "credit_balance_exhausted",
            "credit balance is too low", "billing_error", "organization_spend_limit_exceeded",
            "project_spend_limit_exceeded", "organization_usage_limit_exceeded", "enforced_spend_limit_reached",
            "billing_hard_limit_reached", "you have reached your specified", "you have reached your api usage limits");

    private ProviderRefusals() {
    }

    /**
     * The refusal in an error response.
     * @param status the HTTP status, or {@code 0} when unknown
     * @param body the error body (or a message that quotes it)
     * @return the refusal, or {@code null} when the response is not one
     */
    public static @Nullable FallbackOn classify(int status, @Nullable String body) {
        if (status != 0 && (status < 400 || status >= 500)) {
            return null;
        }
        if (status == 402) {
            return FallbackOn.QUOTA;
        }
        if (body == null || body.isEmpty()) {
            return null;
        }
        String text = body.substring(0, Math.min(body.length(), MAX_TEXT)).toLowerCase(Locale.ROOT);
        if (containsAny(text, QUOTA)) {
            return FallbackOn.QUOTA;
        }
        if (containsAny(text, CONTEXT_LENGTH)) {
            return FallbackOn.CONTEXT_LENGTH;
        }
        if (containsAny(text, CONTENT_POLICY)) {
            return FallbackOn.CONTENT_POLICY;
        }
        return null;
    }

    /**
     * The refusal in what an invocation threw: the first exception of its cause chain
     * that carries one.
     * @param thrown what the invocation threw
     * @return the refusal, or {@code null} when none of the chain is one
     */
    public static @Nullable FallbackOn classify(Throwable thrown) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        Throwable current = thrown;
        for (int depth = 0; current != null && depth < MAX_CAUSE_DEPTH && seen.put(current, true) == null; depth++) {
            FallbackOn refusal = classify(0, current.getMessage());
            if (refusal != null) {
                return refusal;
            }
            current = current.getCause();
        }
        return null;
    }

    private static boolean containsAny(String text, List<String> needles) {
        for (String needle : needles) {
            if (text.contains(needle)) {
                return true;
            }
        }
        return false;
    }

}
