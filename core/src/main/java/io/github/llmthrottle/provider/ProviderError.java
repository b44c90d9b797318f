package io.github.llmthrottle.provider;

import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The error a provider put in a response body, read tolerantly from any of the envelopes
 * seen in the wild:
 * <ul>
 * <li>Anthropic:
 * {@code {"type":"error","error":{"type","message","details":{"error_code"}}}};
 * {@code details.error_code} becomes the {@link #code()}.</li>
 * <li>OpenAI-compatible: {@code {"error":{"message","type","code","param"}}}, where
 * {@code code} may be {@code null}, a number or a string such as Azure's
 * {@code "429"}.</li>
 * <li>Gemini: the same object, or an array of them ({@code [{"error":{...}}]}), with
 * {@code status} read as the type and {@code details[]} carrying
 * {@code RetryInfo.retryDelay} and {@code QuotaFailure.violations[].quotaId}.</li>
 * <li>OpenRouter: numeric {@code code} and {@code metadata.headers.X-RateLimit-Reset} in
 * epoch milliseconds.</li>
 * </ul>
 * Only the first 64 KiB of a body are read. A body that is not JSON (a Cloudflare HTML
 * page, an empty body) gives {@link #UNKNOWN}; parsing never throws.
 *
 * @param type the error type ({@code rate_limit_error}, {@code tokens},
 * {@code RESOURCE_EXHAUSTED}), or {@code null}
 * @param code the error code ({@code rate_limit_exceeded}, {@code insufficient_quota},
 * {@code enforced_spend_limit_reached}, {@code 429}), or {@code null}
 * @param message the human-readable message, or {@code null}
 * @param retryDelay how long the body says to wait (Gemini {@code RetryInfo}, or a hint
 * in the message such as "Please try again in 1.146s"), or {@code null}
 * @param resetAt when the body says the limit resets (OpenRouter), or {@code null}
 * @param quotaExhausted whether retrying cannot succeed until a person acts or a long
 * period passes: quota, billing or spend limits, a daily cap, or a single request larger
 * than the limit
 */
public record ProviderError(@Nullable String type, @Nullable String code, @Nullable String message,
        @Nullable Duration retryDelay, @Nullable Instant resetAt, boolean quotaExhausted) {

    /** An error body that could not be read. */
    public static final ProviderError UNKNOWN = new ProviderError(null, null, null, null, null, false);

    /** How much of a body is read; error envelopes are far smaller. */
    public static final int MAX_BODY_BYTES = 64 * 1024;

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private static final Set<String> QUOTA_CODES = Set.of("insufficient_quota", "credit_balance_exhausted",
            "organization_spend_limit_exceeded", "project_spend_limit_exceeded", "organization_usage_limit_exceeded",
            "enforced_spend_limit_reached", "billing_error", "billing_hard_limit_reached");

    private static final Pattern HINT_WORDS = Pattern.compile(
            "(?:try again|retry)\\s+(?:in|after)\\s+(\\d+(?:\\.\\d+)?)\\s*"
                    + "(milliseconds?|millis|msecs?|seconds?|secs?|minutes?|mins?|hours?)\\b",
            Pattern.CASE_INSENSITIVE);

    private static final Pattern HINT_GO = Pattern.compile(
            "(?:try again|retry)\\s+(?:in|after)\\s+((?:(?:\\d+(?:\\.\\d+)?)(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+)(?![A-Za-z])",
            Pattern.CASE_INSENSITIVE);

    private static final Pattern LIMIT = Pattern.compile("\\bLimit:? ([\\d,]{1,20})");

    private static final Pattern REQUESTED = Pattern.compile("\\bRequested:? ([\\d,]{1,20})");

    private static final Pattern PROTOBUF_DURATION = Pattern.compile("(\\d{1,12}(?:\\.\\d{1,9})?)s");

    /**
     * Whether the body could not be read as an error envelope.
     * @return {@code true} for {@link #UNKNOWN} and equivalent values
     */
    public boolean isUnknown() {
        return this.type == null && this.code == null && this.message == null && this.retryDelay == null
                && this.resetAt == null && !this.quotaExhausted;
    }

    /**
     * Reads an error body.
     * @param body the response body, may be {@code null}
     * @return the error, {@link #UNKNOWN} when the body is not a JSON error envelope
     */
    public static ProviderError parse(byte @Nullable [] body) {
        return parse(body, null);
    }

    /**
     * Reads an error body. The content type is only a hint: a JSON body sent as
     * {@code text/plain} is still read, and a body that does not start like JSON is not.
     * @param body the response body, may be {@code null}
     * @param contentType the media type of the response (a hint only), may be
     * {@code null}
     * @return the error, {@link #UNKNOWN} when the body is not a JSON error envelope
     */
    public static ProviderError parse(byte @Nullable [] body, @Nullable String contentType) {
        if (body == null || body.length == 0) {
            return UNKNOWN;
        }
        int length = Math.min(body.length, MAX_BODY_BYTES);
        if (!looksLikeJson(body, length)) {
            return UNKNOWN;
        }
        try {
            return fromTree(MAPPER.readTree(body, 0, length));
        }
        catch (RuntimeException | StackOverflowError ex) {
            // Malformed or truncated JSON: the error stays unknown, the status still
            // classifies it.
            return UNKNOWN;
        }
    }

    private static boolean looksLikeJson(byte[] body, int length) {
        int i = 0;
        if (length >= 3 && (body[0] & 0xFF) == 0xEF && (body[1] & 0xFF) == 0xBB && (body[2] & 0xFF) == 0xBF) {
            i = 3;
        }
        for (; i < length; i++) {
            byte b = body[i];
            if (b == ' ' || b == '\n' || b == '\r' || b == '\t') {
                continue;
            }
            return b == '{' || b == '[';
        }
        return false;
    }

    private static ProviderError fromTree(@Nullable JsonNode root) {
        if (root == null) {
            return UNKNOWN;
        }
        if (root.isArray()) {
            // Gemini and Vertex wrap the envelope in an array.
            for (JsonNode element : root.values()) {
                if (element.isObject()) {
                    return fromTree(element);
                }
            }
            return UNKNOWN;
        }
        if (!root.isObject()) {
            return UNKNOWN;
        }
        JsonNode error = root.get("error");
        if (error != null && error.isString()) {
            return from(null, null, error.stringValue(), null, null, false);
        }
        if (error == null || !error.isObject()) {
            error = root.has("message") ? root : null;
        }
        if (error == null) {
            return UNKNOWN;
        }
        String type = text(error.get("type"));
        if (type == null) {
            type = text(error.get("status"));
        }
        String code = text(error.get("code"));
        JsonNode details = error.get("details");
        Duration retryDelay = null;
        boolean dailyQuota = false;
        if (details != null && details.isObject()) {
            String errorCode = text(details.get("error_code"));
            if (errorCode != null) {
                code = errorCode;
            }
        }
        else if (details != null && details.isArray()) {
            for (JsonNode detail : details.values()) {
                String detailType = text(detail.get("@type"));
                if (detailType == null) {
                    continue;
                }
                if (detailType.endsWith("google.rpc.RetryInfo")) {
                    retryDelay = protobufDuration(text(detail.get("retryDelay")));
                }
                else if (detailType.endsWith("google.rpc.QuotaFailure")) {
                    for (JsonNode violation : detail.path("violations").values()) {
                        String quotaId = text(violation.get("quotaId"));
                        dailyQuota |= quotaId != null && quotaId.contains("PerDay");
                    }
                }
            }
        }
        JsonNode metadata = error.get("metadata");
        Instant resetAt = null;
        boolean dailyCap = false;
        if (metadata != null && metadata.isObject()) {
            resetAt = epochMillis(header(metadata.get("headers"), "X-RateLimit-Reset"));
            String limitSource = text(metadata.get("limit_source"));
            dailyCap = limitSource != null && limitSource.endsWith("_daily");
        }
        return from(type, code, text(error.get("message")), retryDelay, resetAt, dailyQuota || dailyCap);
    }

    private static ProviderError from(@Nullable String type, @Nullable String code, @Nullable String message,
            @Nullable Duration retryDelay, @Nullable Instant resetAt, boolean quota) {
        Duration delay = (retryDelay != null) ? retryDelay : messageHint(message);
        boolean quotaExhausted = quota || (code != null && QUOTA_CODES.contains(code))
                || (type != null && QUOTA_CODES.contains(type)) || isQuotaMessage(message);
        return new ProviderError(type, code, message, delay, resetAt, quotaExhausted);
    }

    private static boolean isQuotaMessage(@Nullable String message) {
        if (message == null) {
            return false;
        }
        String lower = message.toLowerCase(Locale.ROOT);
        // Anthropic's spend-limit texts, OpenRouter's free-model daily cap.
        if (lower.startsWith("you have reached your specified")
                || lower.startsWith("you have reached your api usage limits")
                || lower.contains("free-models-per-day")) {
            return true;
        }
        // "Request too large ... Limit 30000, Requested 34307": this request can never
        // fit.
        Matcher limit = LIMIT.matcher(message);
        Matcher requested = REQUESTED.matcher(message);
        if (limit.find() && requested.find()) {
            try {
                return new BigDecimal(requested.group(1).replace(",", ""))
                    .compareTo(new BigDecimal(limit.group(1).replace(",", ""))) > 0;
            }
            catch (NumberFormatException ex) {
                return false;
            }
        }
        return false;
    }

    /**
     * Finds a wait hint in an error message: "Please try again in 1.146s", "in 84ms",
     * "Please retry after 37 seconds", "Try again in 35 seconds".
     * @param message the message, may be {@code null}
     * @return the hint, or {@code null} when the message has none
     */
    public static @Nullable Duration messageHint(@Nullable String message) {
        if (message == null) {
            return null;
        }
        Matcher words = HINT_WORDS.matcher(message);
        if (words.find()) {
            BigDecimal amount = new BigDecimal(words.group(1));
            String unit = words.group(2).toLowerCase(Locale.ROOT);
            return nanos(amount.multiply(BigDecimal.valueOf(wordUnitNanos(unit))));
        }
        Matcher go = HINT_GO.matcher(message);
        if (go.find()) {
            return GoDuration.parse(go.group(1));
        }
        return null;
    }

    private static long wordUnitNanos(String unit) {
        if (unit.startsWith("h")) {
            return 3_600_000_000_000L;
        }
        if (unit.startsWith("mil") || unit.startsWith("ms")) {
            return 1_000_000L;
        }
        if (unit.startsWith("min")) {
            return 60_000_000_000L;
        }
        return 1_000_000_000L;
    }

    private static @Nullable Duration protobufDuration(@Nullable String value) {
        if (value == null) {
            return null;
        }
        Matcher matcher = PROTOBUF_DURATION.matcher(value.strip());
        return matcher.matches() ? nanos(new BigDecimal(matcher.group(1)).movePointRight(9)) : null;
    }

    private static @Nullable Duration nanos(BigDecimal nanos) {
        if (nanos.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            return null;
        }
        return Duration.ofNanos(nanos.longValue());
    }

    private static @Nullable JsonNode header(@Nullable JsonNode headers, String name) {
        if (headers == null || !headers.isObject()) {
            return null;
        }
        for (Map.Entry<String, JsonNode> entry : headers.properties()) {
            if (entry.getKey().equalsIgnoreCase(name)) {
                return entry.getValue();
            }
        }
        return null;
    }

    private static @Nullable Instant epochMillis(@Nullable JsonNode node) {
        String text = text(node);
        if (text == null || !text.matches("\\d{1,18}")) {
            return null;
        }
        long value = Long.parseLong(text);
        try {
            // Documented as epoch milliseconds; a value that small can only be epoch
            // seconds.
            return (value < 100_000_000_000L) ? Instant.ofEpochSecond(value) : Instant.ofEpochMilli(value);
        }
        catch (DateTimeException ex) {
            return null;
        }
    }

    private static @Nullable String text(@Nullable JsonNode node) {
        if (node == null || node.isNull() || node.isContainer()) {
            return null;
        }
        String text = node.asString();
        return (text == null || text.isEmpty()) ? null : text;
    }

}
