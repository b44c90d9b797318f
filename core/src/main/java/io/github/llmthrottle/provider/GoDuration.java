package io.github.llmthrottle.provider;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Parses the duration strings OpenAI-compatible providers put in their
 * {@code x-ratelimit-reset-*} headers ({@code 6m0s}, {@code 2m59.56s}, {@code 12ms}). The
 * values are Go {@code time.Duration} strings, so this follows Go's
 * {@code time.ParseDuration} grammar: a possibly signed sequence of decimal numbers, each
 * with an optional fraction and one of the units {@code ns}, {@code us} (or {@code µs},
 * {@code μs}), {@code ms}, {@code s}, {@code m}, {@code h}, summed; or a bare {@code 0}.
 * Anything else parses to {@code null}, never to an exception.
 * <p>
 * Some providers (Azure OpenAI) send a bare number of seconds ({@code 64}) in the same
 * header; {@link #parse(String, boolean)} accepts that form when the caller asks for it.
 */
public final class GoDuration {

    private static final Pattern WHOLE = Pattern
        .compile("[-+]?(?:(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+");

    private static final Pattern COMPONENT = Pattern
        .compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)");

    private static final Pattern BARE_SECONDS = Pattern.compile("\\d+(?:\\.\\d+)?|\\.\\d+");

    private static final BigInteger MAX_NANOS = BigInteger.valueOf(Long.MAX_VALUE);

    /**
     * Longer strings are not a duration any provider sends; refusing them bounds the
     * work.
     */
    private static final int MAX_LENGTH = 100;

    private GoDuration() {
    }

    /**
     * Parses a Go duration string.
     * @param value the header value, may be {@code null}
     * @return the duration (negative when the string has a leading {@code -}), or
     * {@code null} when the value is not a Go duration
     */
    public static @Nullable Duration parse(@Nullable String value) {
        return parse(value, false);
    }

    /**
     * Parses a Go duration string, or, when {@code bareNumberIsSeconds} is set, a bare
     * decimal number of seconds such as Azure's {@code x-ratelimit-reset-tokens: 64}.
     * @param value the header value, may be {@code null}
     * @param bareNumberIsSeconds whether a number without a unit means seconds
     * @return the duration, or {@code null} when the value is neither form
     */
    public static @Nullable Duration parse(@Nullable String value, boolean bareNumberIsSeconds) {
        if (value == null) {
            return null;
        }
        String text = value.strip();
        if (text.isEmpty() || text.length() > MAX_LENGTH) {
            return null;
        }
        if (text.equals("0") || text.equals("-0") || text.equals("+0")) {
            return Duration.ZERO;
        }
        if (bareNumberIsSeconds && BARE_SECONDS.matcher(text).matches()) {
            return toDuration(new BigDecimal(text).movePointRight(9), false);
        }
        if (!WHOLE.matcher(text).matches()) {
            return null;
        }
        boolean negative = text.charAt(0) == '-';
        BigDecimal nanos = BigDecimal.ZERO;
        Matcher matcher = COMPONENT.matcher(text);
        while (matcher.find()) {
            String number = matcher.group(1);
            if (number.endsWith(".")) {
                number = number.substring(0, number.length() - 1);
            }
            nanos = nanos.add(new BigDecimal(number).multiply(BigDecimal.valueOf(unitNanos(matcher.group(2)))));
        }
        return toDuration(nanos, negative);
    }

    private static @Nullable Duration toDuration(BigDecimal nanos, boolean negative) {
        // Go truncates fractions of a nanosecond, and so do we.
        BigInteger whole = nanos.toBigInteger();
        if (whole.compareTo(MAX_NANOS) > 0) {
            return null;
        }
        long value = whole.longValueExact();
        return Duration.ofNanos(negative ? -value : value);
    }

    private static long unitNanos(String unit) {
        return switch (unit) {
            case "ns" -> 1L;
            case "us", "\u00b5s", "\u03bcs" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            default -> 3_600_000_000_000L;
        };
    }

}
