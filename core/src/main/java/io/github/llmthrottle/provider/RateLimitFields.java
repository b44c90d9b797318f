package io.github.llmthrottle.provider;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Reads the IETF {@code RateLimit} and {@code RateLimit-Policy} header fields
 * (draft-ietf-httpapi-ratelimit-headers, after draft 10). Both are RFC 9651 Structured
 * Field Lists: each item is a String naming a policy, followed by parameters. Several
 * header lines are concatenated, as for any list field. As the draft requires, a
 * malformed field is ignored whole: the result is then an empty list. Unknown parameters
 * are ignored.
 */
public final class RateLimitFields {

    private RateLimitFields() {
    }

    /**
     * Parses {@code RateLimit-Policy} field values.
     * @param values the field lines, in order
     * @return the policies, or an empty list when the field is absent or malformed
     */
    public static List<Policy> parsePolicies(List<String> values) {
        List<Item> items = parseList(values);
        if (items == null) {
            return List.of();
        }
        List<Policy> policies = new ArrayList<>();
        for (Item item : items) {
            Object quota = item.parameters.get("q");
            Object unit = item.parameters.get("qu");
            Object window = item.parameters.get("w");
            Object partitionKey = item.parameters.get("pk");
            if (!(item.value instanceof String name) || !(quota instanceof Long q) || q < 0
                    || (unit != null && !(unit instanceof String)) || (window != null && !(window instanceof Long))
                    || (window instanceof Long w && w <= 0)
                    || (partitionKey != null && !(partitionKey instanceof byte[]))) {
                return List.of();
            }
            policies.add(new Policy(name, q, (String) unit, (window != null) ? Duration.ofSeconds((Long) window) : null,
                    (byte[]) partitionKey));
        }
        return List.copyOf(policies);
    }

    /**
     * Parses {@code RateLimit} field values.
     * @param values the field lines, in order
     * @return the current limits, or an empty list when the field is absent or malformed
     */
    public static List<Limit> parseLimits(List<String> values) {
        List<Item> items = parseList(values);
        if (items == null) {
            return List.of();
        }
        List<Limit> limits = new ArrayList<>();
        for (Item item : items) {
            Object remaining = item.parameters.get("r");
            Object reset = item.parameters.get("t");
            Object partitionKey = item.parameters.get("pk");
            if (!(item.value instanceof String name) || !(remaining instanceof Long r) || r < 0
                    || (reset != null && !(reset instanceof Long)) || (reset instanceof Long t && t < 0)
                    || (partitionKey != null && !(partitionKey instanceof byte[]))) {
                return List.of();
            }
            limits.add(new Limit(name, r, (reset != null) ? Duration.ofSeconds((Long) reset) : null,
                    (byte[]) partitionKey));
        }
        return List.copyOf(limits);
    }

    private static @Nullable List<Item> parseList(List<String> values) {
        if (values.isEmpty()) {
            return null;
        }
        String joined = String.join(", ", values);
        if (joined.length() > 8192) {
            return null;
        }
        try {
            return new Parser(joined).parseList();
        }
        catch (IllegalArgumentException | IndexOutOfBoundsException ex) {
            return null;
        }
    }

    /**
     * One quota policy from {@code RateLimit-Policy}.
     *
     * @param name the policy name
     * @param quota the quota units allowed per window ({@code q})
     * @param unit the quota unit ({@code qu}); {@code null} means {@code "requests"}
     * @param window the window ({@code w}), or {@code null} when not sent
     * @param partitionKey the partition key ({@code pk}), or {@code null}
     */
    public record Policy(String name, long quota, @Nullable String unit, @Nullable Duration window,
            byte @Nullable [] partitionKey) {

        /**
         * Whether the quota counts requests (the default unit).
         * @return {@code true} for requests
         */
        public boolean countsRequests() {
            return this.unit == null || this.unit.equals("requests");
        }

    }

    /**
     * The current state of one policy, from {@code RateLimit}.
     *
     * @param name the policy name
     * @param remaining the quota units left ({@code r})
     * @param reset time until more quota is available ({@code t}), or {@code null} when
     * not sent
     * @param partitionKey the partition key ({@code pk}), or {@code null}
     */
    public record Limit(String name, long remaining, @Nullable Duration reset, byte @Nullable [] partitionKey) {

    }

    private record Item(Object value, Map<String, Object> parameters) {

    }

    /**
     * A small RFC 9651 list parser: strings, tokens, integers, decimals, byte sequences,
     * booleans.
     */
    private static final class Parser {

        private final String input;

        private int pos;

        Parser(String input) {
            this.input = input;
        }

        List<Item> parseList() {
            List<Item> items = new ArrayList<>();
            skipSpaces();
            if (atEnd()) {
                throw new IllegalArgumentException("empty list");
            }
            while (!atEnd()) {
                items.add(parseItem());
                skipOws();
                if (atEnd()) {
                    break;
                }
                expect(',');
                skipOws();
                if (atEnd()) {
                    throw new IllegalArgumentException("trailing comma");
                }
            }
            return items;
        }

        private Item parseItem() {
            if (peek() == '(') {
                throw new IllegalArgumentException("inner lists are not expected here");
            }
            Object value = parseBareItem();
            Map<String, Object> parameters = new LinkedHashMap<>();
            while (!atEnd() && peek() == ';') {
                this.pos++;
                skipSpaces();
                String key = parseKey();
                Object parameterValue = Boolean.TRUE;
                if (!atEnd() && peek() == '=') {
                    this.pos++;
                    parameterValue = parseBareItem();
                }
                parameters.put(key, parameterValue);
            }
            return new Item(value, parameters);
        }

        private Object parseBareItem() {
            char c = peek();
            if (c == '-' || Character.isDigit(c)) {
                return parseNumber();
            }
            if (c == '"') {
                return parseString();
            }
            if (c == ':') {
                return parseByteSequence();
            }
            if (c == '?') {
                this.pos++;
                char b = next();
                if (b != '0' && b != '1') {
                    throw new IllegalArgumentException("bad boolean");
                }
                return b == '1';
            }
            if (Character.isLetter(c) || c == '*') {
                return new Token(parseToken());
            }
            throw new IllegalArgumentException("unexpected " + c);
        }

        private Object parseNumber() {
            int start = this.pos;
            if (peek() == '-') {
                this.pos++;
            }
            int digitsStart = this.pos;
            while (!atEnd() && Character.isDigit(peek())) {
                this.pos++;
            }
            boolean decimal = false;
            if (!atEnd() && peek() == '.') {
                decimal = true;
                this.pos++;
                int fractionStart = this.pos;
                while (!atEnd() && Character.isDigit(peek())) {
                    this.pos++;
                }
                if (this.pos == fractionStart || this.pos - fractionStart > 3) {
                    throw new IllegalArgumentException("bad decimal");
                }
            }
            int integerDigits = (decimal ? this.input.lastIndexOf('.', this.pos) : this.pos) - digitsStart;
            if (integerDigits == 0 || integerDigits > (decimal ? 12 : 15)) {
                throw new IllegalArgumentException("bad number");
            }
            String text = this.input.substring(start, this.pos);
            return decimal ? (Object) Double.valueOf(text) : (Object) Long.valueOf(text);
        }

        private String parseString() {
            expect('"');
            StringBuilder sb = new StringBuilder();
            while (true) {
                char c = next();
                if (c == '\\') {
                    char escaped = next();
                    if (escaped != '"' && escaped != '\\') {
                        throw new IllegalArgumentException("bad escape");
                    }
                    sb.append(escaped);
                }
                else if (c == '"') {
                    return sb.toString();
                }
                else if (c < 0x20 || c > 0x7e) {
                    throw new IllegalArgumentException("bad string character");
                }
                else {
                    sb.append(c);
                }
            }
        }

        private byte[] parseByteSequence() {
            expect(':');
            int end = this.input.indexOf(':', this.pos);
            if (end < 0) {
                throw new IllegalArgumentException("unterminated byte sequence");
            }
            String base64 = this.input.substring(this.pos, end);
            this.pos = end + 1;
            return Base64.getDecoder().decode(base64);
        }

        private String parseToken() {
            int start = this.pos;
            while (!atEnd() && isTokenChar(peek())) {
                this.pos++;
            }
            return this.input.substring(start, this.pos);
        }

        private String parseKey() {
            char first = peek();
            if (!(first >= 'a' && first <= 'z') && first != '*') {
                throw new IllegalArgumentException("bad key");
            }
            int start = this.pos;
            while (!atEnd()) {
                char c = peek();
                if ((c >= 'a' && c <= 'z') || Character.isDigit(c) || c == '_' || c == '-' || c == '.' || c == '*') {
                    this.pos++;
                }
                else {
                    break;
                }
            }
            return this.input.substring(start, this.pos);
        }

        private static boolean isTokenChar(char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || Character.isDigit(c)
                    || "!#$%&'*+-.^_`|~:/".indexOf(c) >= 0;
        }

        private void skipSpaces() {
            while (!atEnd() && peek() == ' ') {
                this.pos++;
            }
        }

        private void skipOws() {
            while (!atEnd() && (peek() == ' ' || peek() == '\t')) {
                this.pos++;
            }
        }

        private void expect(char c) {
            if (next() != c) {
                throw new IllegalArgumentException("expected " + c);
            }
        }

        private char peek() {
            return this.input.charAt(this.pos);
        }

        private char next() {
            return this.input.charAt(this.pos++);
        }

        private boolean atEnd() {
            return this.pos >= this.input.length();
        }

    }

    private record Token(String value) {

    }

}
