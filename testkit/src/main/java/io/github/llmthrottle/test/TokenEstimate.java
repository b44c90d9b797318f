package io.github.llmthrottle.test;

/**
 * The simulator's deterministic input-token estimate, public so that tests can predict
 * what the simulator debits: the characters of all text pieces of a request (system
 * prompt, message contents, text parts; non-text blocks and tool definitions by the
 * length of their JSON) summed, divided by four and rounded up, and at least one.
 */
public final class TokenEstimate {

    private TokenEstimate() {
    }

    /**
     * Estimates the tokens of some text pieces taken together.
     * @param texts the text pieces
     * @return {@code max(1, ceil(totalChars / 4))}
     */
    public static int of(CharSequence... texts) {
        long chars = 0;
        for (CharSequence text : texts) {
            chars += text.length();
        }
        return ofChars(chars);
    }

    static int ofChars(long chars) {
        return (int) Math.max(1, (chars + 3) / 4);
    }

}
