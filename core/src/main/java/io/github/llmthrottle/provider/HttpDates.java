package io.github.llmthrottle.provider;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Parses the three HTTP-date forms of RFC 9110 §5.6.7, as found in {@code Retry-After}:
 * IMF-fixdate ({@code Sun, 06 Nov 1994 08:49:37 GMT}, also with a one-digit day,
 * {@code Sun, 6 Nov 1994 08:49:37 GMT}, as {@code java.time}'s
 * {@code DateTimeFormatter.RFC_1123_DATE_TIME} and the servers built on it write it), the
 * obsolete RFC 850 form with a two-digit year ({@code Sunday, 06-Nov-94 08:49:37 GMT})
 * and ANSI C's asctime form ({@code Sun Nov  6 08:49:37 1994}). Day and month names are
 * matched case-insensitively; the day-of-week is checked to be a real name but not
 * checked against the date. Anything else, including out-of-range years and fields, gives
 * {@code null}; nothing here throws.
 */
public final class HttpDates {

    private static final List<String> DAYS = List.of("mon", "tue", "wed", "thu", "fri", "sat", "sun");

    private static final List<String> LONG_DAYS = List.of("monday", "tuesday", "wednesday", "thursday", "friday",
            "saturday", "sunday");

    private static final List<String> MONTHS = List.of("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep",
            "oct", "nov", "dec");

    private static final Pattern IMF_FIXDATE = Pattern
        .compile("([A-Za-z]{3}), (\\d{1,2}) ([A-Za-z]{3}) (\\d{4}) (\\d{2}):(\\d{2}):(\\d{2}) GMT");

    private static final Pattern RFC_850 = Pattern
        .compile("([A-Za-z]{6,9}), (\\d{2})-([A-Za-z]{3})-(\\d{2}) (\\d{2}):(\\d{2}):(\\d{2}) GMT");

    private static final Pattern ASCTIME = Pattern
        .compile("([A-Za-z]{3}) ([A-Za-z]{3}) ( \\d|\\d{2}) (\\d{2}):(\\d{2}):(\\d{2}) (\\d{4})");

    private HttpDates() {
    }

    /**
     * Parses an HTTP-date.
     * @param value the header value, may be {@code null}
     * @param now the current instant, used only to place an RFC 850 two-digit year in the
     * right century (RFC 9110: a date more than 50 years in the future is taken to be in
     * the past)
     * @return the instant, or {@code null} when the value is not a valid HTTP-date
     */
    public static @Nullable Instant parse(@Nullable String value, Instant now) {
        if (value == null || value.length() > 64) {
            return null;
        }
        String text = value.strip();
        try {
            Matcher m = IMF_FIXDATE.matcher(text);
            if (m.matches() && DAYS.contains(lower(m.group(1)))) {
                return instant(Integer.parseInt(m.group(4)), m.group(3), m.group(2), m.group(5), m.group(6),
                        m.group(7));
            }
            m = RFC_850.matcher(text);
            if (m.matches() && LONG_DAYS.contains(lower(m.group(1)))) {
                int year = twoDigitYear(Integer.parseInt(m.group(4)), now);
                return instant(year, m.group(3), m.group(2), m.group(5), m.group(6), m.group(7));
            }
            m = ASCTIME.matcher(text);
            if (m.matches() && DAYS.contains(lower(m.group(1)))) {
                return instant(Integer.parseInt(m.group(7)), m.group(2), m.group(3).strip(), m.group(4), m.group(5),
                        m.group(6));
            }
        }
        catch (DateTimeException | NumberFormatException ex) {
            // fall through: not a valid date
        }
        return null;
    }

    private static @Nullable Instant instant(int year, String monthName, String day, String hour, String minute,
            String second) {
        int month = MONTHS.indexOf(lower(monthName)) + 1;
        if (month == 0) {
            return null;
        }
        // RFC 9110 allows a leap second (60); java.time does not, so read it as the
        // second before.
        int seconds = Math.min(Integer.parseInt(second), 60);
        LocalDateTime time = LocalDateTime.of(year, month, Integer.parseInt(day), Integer.parseInt(hour),
                Integer.parseInt(minute), Math.min(seconds, 59));
        return time.toInstant(ZoneOffset.UTC);
    }

    private static int twoDigitYear(int twoDigits, Instant now) {
        int currentYear = LocalDateTime.ofInstant(now, ZoneOffset.UTC).getYear();
        int year = (currentYear / 100) * 100 + twoDigits;
        if (year > currentYear + 50) {
            year -= 100;
        }
        else if (year <= currentYear - 50) {
            year += 100;
        }
        return year;
    }

    private static String lower(String value) {
        return value.toLowerCase(Locale.ROOT);
    }

}
