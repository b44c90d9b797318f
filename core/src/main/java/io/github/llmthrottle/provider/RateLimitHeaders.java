package io.github.llmthrottle.provider;

import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Reads a provider's rate-limit response headers into a {@link RateLimitSnapshot}.
 * <ul>
 * <li>{@link ProviderDialect#ANTHROPIC}:
 * {@code anthropic-ratelimit-{requests,tokens,input-tokens,
 * output-tokens}-{limit,remaining,reset}}, resets in RFC 3339. The subscription
 * {@code anthropic-ratelimit-unified-*} family (epoch-second resets) is not read.</li>
 * <li>{@link ProviderDialect#OPENAI} (OpenAI, Groq, Azure OpenAI, ...):
 * {@code x-ratelimit-{limit,remaining,reset}-{requests,tokens}}; resets are Go durations
 * ({@code 6m0s}) or a bare number of seconds (Azure), relative to the instant the
 * response was received. The token headers fill the combined {@code tokens*} dimension.
 * Unknown suffixes such as {@code -tokens_usage_based} are ignored.</li>
 * <li>{@link ProviderDialect#OLLAMA}: none of its own (Ollama documents none).</li>
 * <li>Every dialect, {@link ProviderDialect#GENERIC} and {@link ProviderDialect#OLLAMA}
 * in particular: the IETF {@code RateLimit} / {@code RateLimit-Policy} fields (and the
 * older {@code RateLimit-Limit/-Remaining/-Reset} headers) fill the request dimension
 * when the dialect's own headers did not.</li>
 * </ul>
 * A value of {@code -1} means unknown (Azure) and drops that dimension; a negative
 * remaining count below that (Azure's {@code -27689}) means exhausted and reads as
 * {@code 0}. A limit is only taken from an IETF policy whose window is 60 seconds,
 * because the snapshot's limits are read as per-minute figures. Nothing here throws on a
 * header value: what cannot be read is left {@code null}.
 * <p>
 * Not representable in a snapshot and so not read: Together's per-second
 * {@code x-ratelimit-limit} / {@code x-tokenlimit-*} headers and Mistral's
 * {@code ratelimitbysize-*} headers. Note that Groq's {@code x-ratelimit-*-requests}
 * headers count requests per <em>day</em>, which the headers themselves do not say.
 */
public final class RateLimitHeaders {

    private static final Pattern EPOCH_SECONDS = Pattern.compile("\\d{1,12}(?:\\.\\d+)?");

    /** The longest reset a relay sends as a delay rather than as an instant. */
    private static final Duration MAX_RELATIVE_RESET = Duration.ofDays(366);

    private static final String ANTHROPIC_PREFIX = "anthropic-ratelimit-";

    private static final String OPENAI_PREFIX = "x-ratelimit-";

    // The names are built once, not per response.

    private static final Names ANTHROPIC_REQUESTS = Names.anthropic("requests");

    private static final Names ANTHROPIC_TOKENS = Names.anthropic("tokens");

    private static final Names ANTHROPIC_INPUT = Names.anthropic("input-tokens");

    private static final Names ANTHROPIC_OUTPUT = Names.anthropic("output-tokens");

    private static final Names OPENAI_REQUESTS = Names.openAi("requests");

    private static final Names OPENAI_TOKENS = Names.openAi("tokens");

    private static final Names RELAY_INPUT = Names.openAi("input-tokens");

    private static final Names RELAY_OUTPUT = Names.openAi("output-tokens");

    private RateLimitHeaders() {
    }

    /**
     * Reads the rate-limit headers of one response.
     * @param dialect the provider dialect
     * @param headers the response headers
     * @param receivedAt when the response was received; relative resets are added to it
     * @return the snapshot, possibly {@link RateLimitSnapshot#isEmpty() empty}
     */
    public static RateLimitSnapshot parse(ProviderDialect dialect, Headers headers, Instant receivedAt) {
        Dimension requests = Dimension.NONE;
        Dimension input = Dimension.NONE;
        Dimension output = Dimension.NONE;
        Dimension tokens = Dimension.NONE;
        switch (dialect) {
            case ANTHROPIC -> {
                requests = lower(anthropic(headers, ANTHROPIC_REQUESTS), relay(headers, OPENAI_REQUESTS, receivedAt));
                tokens = lower(anthropic(headers, ANTHROPIC_TOKENS), relay(headers, OPENAI_TOKENS, receivedAt));
                input = lower(anthropic(headers, ANTHROPIC_INPUT), relay(headers, RELAY_INPUT, receivedAt));
                output = lower(anthropic(headers, ANTHROPIC_OUTPUT), relay(headers, RELAY_OUTPUT, receivedAt));
            }
            case OPENAI -> {
                requests = openAi(headers, OPENAI_REQUESTS, receivedAt);
                tokens = openAi(headers, OPENAI_TOKENS, receivedAt);
            }
            case OLLAMA, GENERIC -> {
                // no headers of their own
            }
        }
        if (requests.isEmpty()) {
            requests = ietf(headers, receivedAt);
        }
        return new RateLimitSnapshot(requests.limit, requests.remaining, requests.reset, input.limit, input.remaining,
                input.reset, output.limit, output.remaining, output.reset, tokens.limit, tokens.remaining, tokens.reset,
                receivedAt);
    }

    private static Dimension anthropic(Headers headers, Names names) {
        return dimension(headers.first(names.limit()), headers.first(names.remaining()),
                rfc3339(headers.first(names.reset())));
    }

    private static Dimension openAi(Headers headers, Names names, Instant receivedAt) {
        Duration reset = GoDuration.parse(headers.first(names.reset()), true);
        return dimension(headers.first(names.limit()), headers.first(names.remaining()), after(receivedAt, reset));
    }

    /**
     * A relay's {@code x-ratelimit-*} dimension beside Anthropic's headers: its reset may
     * be relative (a Go duration or seconds, as OpenAI-style gateways send) or an RFC
     * 3339 instant (as the relay may copy Anthropic's form).
     */
    private static Dimension relay(Headers headers, Names names, Instant receivedAt) {
        String resetValue = headers.first(names.reset());
        Duration delay = GoDuration.parse(resetValue, true);
        // a number of seconds too large to be a delay is an epoch instant
        Instant reset = (delay != null && delay.compareTo(MAX_RELATIVE_RESET) <= 0) ? after(receivedAt, delay)
                : rfc3339(resetValue);
        return dimension(headers.first(names.limit()), headers.first(names.remaining()), reset);
    }

    /**
     * The dimension whose remaining count is lower, taken whole (its limit and reset
     * describe the same bucket); when only one reports a remaining count, that one; when
     * neither does, the one with the lower limit, else the first.
     */
    private static Dimension lower(Dimension first, Dimension second) {
        if (second.isEmpty()) {
            return first;
        }
        if (first.isEmpty()) {
            return second;
        }
        if (first.remaining != null || second.remaining != null) {
            if (second.remaining == null) {
                return first;
            }
            return (first.remaining == null || second.remaining < first.remaining) ? second : first;
        }
        if (first.limit != null && second.limit != null) {
            return (second.limit < first.limit) ? second : first;
        }
        return (first.limit == null && second.limit != null) ? second : first;
    }

    private static Dimension ietf(Headers headers, Instant receivedAt) {
        List<RateLimitFields.Limit> limits = RateLimitFields.parseLimits(values(headers, "RateLimit"));
        if (!limits.isEmpty()) {
            List<RateLimitFields.Policy> policies = RateLimitFields.parsePolicies(values(headers, "RateLimit-Policy"));
            // The most restrictive request policy is the one that will refuse the next
            // request.
            RateLimitFields.Limit tightest = limits.stream().filter((limit) -> {
                RateLimitFields.Policy policy = policy(policies, limit.name());
                return policy == null || policy.countsRequests();
            }).min(Comparator.comparingLong(RateLimitFields.Limit::remaining)).orElse(null);
            if (tightest == null) {
                return Dimension.NONE;
            }
            RateLimitFields.Policy policy = policy(policies, tightest.name());
            Long limit = (policy != null && Duration.ofMinutes(1).equals(policy.window())) ? policy.quota() : null;
            return new Dimension(limit, tightest.remaining(), after(receivedAt, tightest.reset()));
        }
        // Drafts up to -07 used separate headers with delta-seconds resets; some servers
        // still send them.
        String remaining = headers.first("RateLimit-Remaining");
        if (remaining != null) {
            Duration reset = GoDuration.parse(headers.first("RateLimit-Reset"), true);
            return dimension(null, remaining, after(receivedAt, reset));
        }
        return Dimension.NONE;
    }

    private static RateLimitFields.@Nullable Policy policy(List<RateLimitFields.Policy> policies, String name) {
        for (RateLimitFields.Policy policy : policies) {
            if (policy.name().equals(name)) {
                return policy;
            }
        }
        return null;
    }

    private static List<String> values(Headers headers, String name) {
        return headers.values(name);
    }

    private static Dimension dimension(@Nullable String limitValue, @Nullable String remainingValue,
            @Nullable Instant reset) {
        Long limit = count(limitValue);
        Long remaining = count(remainingValue);
        if (isUnknown(limit) || isUnknown(remaining)) {
            // Azure sends -1 / -1 / 0 when it does not know: nothing in that dimension is
            // usable.
            return Dimension.NONE;
        }
        if (limit != null && limit < 0) {
            limit = null;
        }
        if (remaining != null && remaining < 0) {
            remaining = 0L;
        }
        return new Dimension(limit, remaining, reset);
    }

    private static boolean isUnknown(@Nullable Long value) {
        return value != null && value == -1L;
    }

    /**
     * Whether {@code text} is an optional sign and 1 to 18 digits (always a valid long).
     */
    private static boolean isInteger(String text) {
        int start = (!text.isEmpty() && (text.charAt(0) == '-' || text.charAt(0) == '+')) ? 1 : 0;
        int digits = text.length() - start;
        if (digits < 1 || digits > 18) {
            return false;
        }
        for (int i = start; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static @Nullable Long count(@Nullable String value) {
        if (value == null) {
            return null;
        }
        String text = value.strip();
        if (isInteger(text)) {
            return Long.parseLong(text);
        }
        // Tolerate "96000.0" and the like; anything else is not a count.
        try {
            BigDecimal decimal = new BigDecimal(text);
            if (decimal.abs().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) < 0) {
                return decimal.longValue();
            }
        }
        catch (NumberFormatException ex) {
            // not a number
        }
        return null;
    }

    private static @Nullable Instant rfc3339(@Nullable String value) {
        if (value == null) {
            return null;
        }
        String text = value.strip();
        Instant utc = utcSeconds(text);
        if (utc != null) {
            return utc;
        }
        if (EPOCH_SECONDS.matcher(text).matches()) {
            // The unified-* family and some proxies send epoch seconds.
            return Instant.ofEpochSecond(new BigDecimal(text).longValue());
        }
        try {
            return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
        }
        catch (DateTimeException ex) {
            return null;
        }
    }

    /**
     * The form every observed Anthropic reset has, {@code 2025-08-21T12:40:59Z}, read
     * without a formatter: it is parsed on every response, and the general parser costs
     * several microseconds and kilobytes of garbage per header.
     */
    private static @Nullable Instant utcSeconds(String text) {
        if (text.length() != 20 || text.charAt(4) != '-' || text.charAt(7) != '-' || text.charAt(10) != 'T'
                || text.charAt(13) != ':' || text.charAt(16) != ':' || text.charAt(19) != 'Z') {
            return null;
        }
        int year = digits(text, 0, 4);
        int month = digits(text, 5, 7);
        int day = digits(text, 8, 10);
        int hour = digits(text, 11, 13);
        int minute = digits(text, 14, 16);
        int second = digits(text, 17, 19);
        if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) {
            return null;
        }
        try {
            return LocalDateTime.of(year, month, day, hour, minute, second).toInstant(ZoneOffset.UTC);
        }
        catch (DateTimeException ex) {
            return null;
        }
    }

    private static int digits(String text, int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static @Nullable Instant after(Instant receivedAt, @Nullable Duration delay) {
        if (delay == null) {
            return null;
        }
        try {
            return receivedAt.plus(delay.isNegative() ? Duration.ZERO : delay);
        }
        catch (DateTimeException | ArithmeticException ex) {
            return null;
        }
    }

    private record Dimension(@Nullable Long limit, @Nullable Long remaining, @Nullable Instant reset) {

        static final Dimension NONE = new Dimension(null, null, null);

        boolean isEmpty() {
            return this.limit == null && this.remaining == null && this.reset == null;
        }

    }

    /** The three header names of one dimension. */
    private record Names(String limit, String remaining, String reset) {

        static Names anthropic(String dimension) {
            String prefix = ANTHROPIC_PREFIX + dimension;
            return new Names(prefix + "-limit", prefix + "-remaining", prefix + "-reset");
        }

        static Names openAi(String dimension) {
            return new Names(OPENAI_PREFIX + "limit-" + dimension, OPENAI_PREFIX + "remaining-" + dimension,
                    OPENAI_PREFIX + "reset-" + dimension);
        }

    }

}
