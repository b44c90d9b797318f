package io.github.llmthrottle.provider;

/**
 * Text made fit for one log line: a log message that includes a string a provider or a
 * request chose (a model name, an error type, a request id, an exception's message) is
 * passed through {@link #escape} so that a carriage return, a line feed or another
 * control character in it cannot forge further log lines or hide a line's end.
 */
public final class LogText {

    private LogText() {
    }

    /**
     * The text with {@code \r}, {@code \n} and {@code \t} written as such, and every
     * other control character and Unicode line or paragraph separator as
     * {@code \}{@code uXXXX}.
     * @param text the text
     * @return the text on one line, the same instance when there was nothing to escape
     */
    public static String escape(String text) {
        int i = 0;
        while (i < text.length() && !needsEscape(text.charAt(i))) {
            i++;
        }
        if (i == text.length()) {
            return text;
        }
        StringBuilder escaped = new StringBuilder(text.length() + 16).append(text, 0, i);
        for (; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\r' -> escaped.append("\\r");
                case '\n' -> escaped.append("\\n");
                case '\t' -> escaped.append("\\t");
                default -> {
                    if (needsEscape(c)) {
                        escaped.append(String.format("\\u%04x", (int) c));
                    }
                    else {
                        escaped.append(c);
                    }
                }
            }
        }
        return escaped.toString();
    }

    private static boolean needsEscape(char c) {
        return Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
    }

}
