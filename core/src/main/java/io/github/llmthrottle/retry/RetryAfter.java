package io.github.llmthrottle.retry;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.regex.Pattern;

import io.github.llmthrottle.provider.GoDuration;
import io.github.llmthrottle.provider.Headers;
import io.github.llmthrottle.provider.HttpDates;
import io.github.llmthrottle.provider.ProviderError;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * How long the server asked us to wait, and where it said so. Sources, highest priority
 * first:
 * <ol>
 * <li>{@code retry-after-ms} (milliseconds, fractions allowed; OpenAI, Azure),</li>
 * <li>{@code x-ms-retry-after-ms} (Azure),</li>
 * <li>{@code retry-after}: delay-seconds (fractions accepted, as the SDKs do) or an
 * HTTP-date, relative to the clock; a date in the past means {@link Duration#ZERO},</li>
 * <li>the reset header of the exhausted dimension: the latest reset among the dimensions
 * whose remaining count is {@code 0} (including the IETF {@code RateLimit} field's
 * {@code t}),</li>
 * <li>the error body: Gemini's {@code RetryInfo}, a hint in the message ("Please try
 * again in 1.146s"), or OpenRouter's reset instant,</li>
 * <li>a bare {@code x-ratelimit-reset}, as some gateways and relays send (Together
 * documents it without a unit): seconds, fractions allowed, or a Go duration
 * ({@code 1.5s}). A whole number too large to be a plausible wait is read as an epoch
 * instant when it has the magnitude of one (10 digits: seconds, 13 digits: milliseconds),
 * since such values and waits of up to {@link #MAX_PLAUSIBLE} cannot be confused; any
 * other form is ignored.</li>
 * </ol>
 * A value that is negative, empty, non-finite, malformed, or longer than
 * {@link #MAX_PLAUSIBLE} is ignored, as if absent, and the next source is tried. Whether
 * a wait is too long to honour is the retry engine's decision, not this class's.
 *
 * @param duration how long to wait, never negative
 * @param source where the wait came from
 */
public record RetryAfter(Duration duration, Source source) {

    /**
     * Longer waits are taken to be garbage ({@code retry-after: 99999999999999999999}).
     */
    public static final Duration MAX_PLAUSIBLE = Duration.ofDays(366);

    private static final Pattern DECIMAL = Pattern.compile("\\d+(?:\\.\\d*)?|\\.\\d+");

    private static final Pattern EPOCH_SECONDS = Pattern.compile("[1-9]\\d{9}");

    private static final Pattern EPOCH_MILLIS = Pattern.compile("[1-9]\\d{12}");

    private static final BigDecimal MAX_PLAUSIBLE_SECONDS = BigDecimal.valueOf(MAX_PLAUSIBLE.toSeconds());

    /**
     * Creates a wait.
     * @param duration how long to wait, never negative
     * @param source where the wait came from
     */
    public RetryAfter {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("duration must not be negative but was " + duration);
        }
    }

    /**
     * Reads the explicit retry headers only.
     * @param headers the response headers
     * @param clock the clock an HTTP-date is measured against
     * @return the wait, or {@code null} when no usable header was sent
     */
    public static @Nullable RetryAfter fromHeaders(Headers headers, Clock clock) {
        Duration millis = parseMillis(headers.first("retry-after-ms"));
        if (millis != null) {
            return new RetryAfter(millis, Source.RETRY_AFTER_MS);
        }
        millis = parseMillis(headers.first("x-ms-retry-after-ms"));
        if (millis != null) {
            return new RetryAfter(millis, Source.X_MS_RETRY_AFTER_MS);
        }
        Duration retryAfter = parseRetryAfter(headers.first("retry-after"), clock.instant());
        return (retryAfter != null) ? new RetryAfter(retryAfter, Source.RETRY_AFTER) : null;
    }

    /**
     * Finds the server's wait from every source, in priority order.
     * @param headers the response headers
     * @param rateLimits the rate-limit headers already read from the same response, or
     * {@code null}
     * @param error the error body already read from the same response, or {@code null}
     * @param clock the clock waits are measured against
     * @return the wait, or {@code null} when the response gave no usable hint
     */
    public static @Nullable RetryAfter resolve(Headers headers, @Nullable RateLimitSnapshot rateLimits,
            @Nullable ProviderError error, Clock clock) {
        RetryAfter explicit = fromHeaders(headers, clock);
        if (explicit != null) {
            return explicit;
        }
        Instant now = clock.instant();
        Duration reset = (rateLimits != null) ? exhaustedReset(rateLimits, now) : null;
        if (reset != null) {
            return new RetryAfter(reset, Source.RESET_HEADER);
        }
        if (error != null) {
            Duration hint = error.retryDelay();
            if (hint == null && error.resetAt() != null) {
                hint = nonNegative(Duration.between(now, error.resetAt()));
            }
            if (hint != null && !hint.isNegative() && hint.compareTo(MAX_PLAUSIBLE) <= 0) {
                return new RetryAfter(hint, Source.BODY);
            }
        }
        Duration bareReset = parseBareReset(headers.first("x-ratelimit-reset"), now);
        return (bareReset != null) ? new RetryAfter(bareReset, Source.BARE_RESET) : null;
    }

    /**
     * Parses a bare {@code x-ratelimit-reset} value: seconds (fractions allowed), a Go
     * duration, or an epoch instant in seconds (10 digits) or milliseconds (13 digits).
     * @param value the header value, may be {@code null}
     * @param now the current instant, which an epoch instant is measured against
     * @return the wait ({@link Duration#ZERO} for an instant in the past), or
     * {@code null} when the value is absent, in another form, or implausible
     */
    public static @Nullable Duration parseBareReset(@Nullable String value, Instant now) {
        if (value == null) {
            return null;
        }
        String text = value.strip();
        Duration seconds = parseDecimal(text, 9);
        if (seconds != null) {
            return seconds;
        }
        if (EPOCH_SECONDS.matcher(text).matches() || EPOCH_MILLIS.matcher(text).matches()) {
            long epoch = Long.parseLong(text);
            Instant instant = (text.length() == 10) ? Instant.ofEpochSecond(epoch) : Instant.ofEpochMilli(epoch);
            Duration wait = nonNegative(Duration.between(now, instant));
            return (wait.compareTo(MAX_PLAUSIBLE) <= 0) ? wait : null;
        }
        Duration duration = GoDuration.parse(text);
        if (duration == null || duration.isNegative() || duration.compareTo(MAX_PLAUSIBLE) > 0) {
            return null;
        }
        return duration;
    }

    /**
     * Parses a {@code retry-after} value: delay-seconds (fractions accepted) or an
     * HTTP-date.
     * @param value the header value, may be {@code null}
     * @param now the current instant
     * @return the wait ({@link Duration#ZERO} for a date in the past), or {@code null}
     * when the value is absent, invalid or implausible
     */
    public static @Nullable Duration parseRetryAfter(@Nullable String value, Instant now) {
        if (value == null) {
            return null;
        }
        String text = value.strip();
        Duration seconds = parseDecimal(text, 9);
        if (seconds != null || DECIMAL.matcher(text).matches()) {
            return seconds;
        }
        Instant date = HttpDates.parse(text, now);
        if (date == null) {
            return null;
        }
        Duration wait = nonNegative(Duration.between(now, date));
        return (wait.compareTo(MAX_PLAUSIBLE) <= 0) ? wait : null;
    }

    /**
     * Parses a {@code retry-after-ms} style value: milliseconds, fractions allowed.
     * @param value the header value, may be {@code null}
     * @return the wait, or {@code null} when the value is absent, invalid or implausible
     */
    public static @Nullable Duration parseMillis(@Nullable String value) {
        return (value != null) ? parseDecimal(value.strip(), 6) : null;
    }

    private static @Nullable Duration parseDecimal(String text, int nanosShift) {
        if (text.length() > 64 || !DECIMAL.matcher(text).matches()) {
            return null;
        }
        BigDecimal nanos = new BigDecimal(text.endsWith(".") ? text.substring(0, text.length() - 1) : text)
            .movePointRight(nanosShift);
        if (nanos.compareTo(MAX_PLAUSIBLE_SECONDS.movePointRight(9)) > 0) {
            return null;
        }
        return Duration.ofNanos(nanos.longValue());
    }

    private static @Nullable Duration exhaustedReset(RateLimitSnapshot limits, Instant now) {
        Instant latest = null;
        latest = later(latest, limits.requestsRemaining(), limits.requestsReset());
        latest = later(latest, limits.tokensRemaining(), limits.tokensReset());
        latest = later(latest, limits.inputTokensRemaining(), limits.inputTokensReset());
        latest = later(latest, limits.outputTokensRemaining(), limits.outputTokensReset());
        if (latest == null) {
            return null;
        }
        Duration wait = nonNegative(Duration.between(now, latest));
        return (wait.compareTo(MAX_PLAUSIBLE) <= 0) ? wait : null;
    }

    private static @Nullable Instant later(@Nullable Instant latest, @Nullable Long remaining,
            @Nullable Instant reset) {
        if (remaining == null || remaining > 0 || reset == null) {
            return latest;
        }
        return (latest == null || reset.isAfter(latest)) ? reset : latest;
    }

    private static Duration nonNegative(Duration duration) {
        return duration.isNegative() ? Duration.ZERO : duration;
    }

    /** Where a server wait came from. */
    public enum Source {

        /** The {@code retry-after-ms} header. */
        RETRY_AFTER_MS,

        /** Azure's {@code x-ms-retry-after-ms} header. */
        X_MS_RETRY_AFTER_MS,

        /** The standard {@code retry-after} header. */
        RETRY_AFTER,

        /** The reset header of the exhausted rate-limit dimension. */
        RESET_HEADER,

        /** A hint in the error body. */
        BODY,

        /**
         * A bare {@code x-ratelimit-reset} header, read when no other source gave a wait.
         */
        BARE_RESET

    }

}
