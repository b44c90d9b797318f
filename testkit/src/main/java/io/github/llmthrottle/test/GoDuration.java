package io.github.llmthrottle.test;

/**
 * Formats durations the way Go's {@code time.Duration.String()} does ({@code 6m0s},
 * {@code 1.146s}, {@code 12ms}, {@code 0s}), which is the format of OpenAI's
 * {@code x-ratelimit-reset-*} headers.
 */
final class GoDuration {

    private GoDuration() {
    }

    static String format(long nanos) {
        if (nanos == 0) {
            return "0s";
        }
        String sign = (nanos < 0) ? "-" : "";
        long u = Math.abs(nanos);
        if (u < 1_000_000_000L) {
            if (u < 1_000L) {
                return sign + u + "ns";
            }
            if (u < 1_000_000L) {
                return sign + decimal(u, 1_000L, 3) + "µs";
            }
            return sign + decimal(u, 1_000_000L, 6) + "ms";
        }
        long seconds = u / 1_000_000_000L;
        String s = decimal((seconds % 60) * 1_000_000_000L + u % 1_000_000_000L, 1_000_000_000L, 9) + "s";
        long minutes = seconds / 60;
        if (minutes == 0) {
            return sign + s;
        }
        s = (minutes % 60) + "m" + s;
        long hours = minutes / 60;
        return sign + ((hours == 0) ? s : hours + "h" + s);
    }

    /** Rounds to whole milliseconds first, as OpenAI's values are. */
    static String formatMillis(long nanos) {
        long millis = (nanos + 500_000L) / 1_000_000L;
        return format(millis * 1_000_000L);
    }

    private static String decimal(long value, long unit, int digits) {
        long whole = value / unit;
        long fraction = value % unit;
        if (fraction == 0) {
            return Long.toString(whole);
        }
        StringBuilder f = new StringBuilder(Long.toString(fraction));
        while (f.length() < digits) {
            f.insert(0, '0');
        }
        int end = f.length();
        while (end > 0 && f.charAt(end - 1) == '0') {
            end--;
        }
        return whole + "." + f.substring(0, end);
    }

}
