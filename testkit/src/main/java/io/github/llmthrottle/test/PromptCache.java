package io.github.llmthrottle.test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Anthropic prompt caching as the simulator models it. A request's {@code cache_control}
 * breakpoints (on tool definitions, system blocks and message content blocks, in that
 * order) mark cacheable prefixes; the prefix up to a block is identified by a hash of the
 * blocks up to it (without their {@code cache_control}, so that a breakpoint moved to a
 * later block still finds the earlier prefix), per model. A request reads the longest
 * prefix that is cached at its breakpoints or at one of the 20 blocks before each, and
 * writes the prefix up to its last breakpoint; a prefix shorter than the minimum
 * cacheable length is neither read nor written. An entry lives for its breakpoint's TTL
 * (5 minutes, or 1 hour for {@code "ttl":"1h"}) on the simulator's clock, renewed when it
 * is read or written again. Thread-safe; expired entries are dropped as new ones are
 * written, so memory stays bounded by what a TTL's worth of traffic writes.
 */
final class PromptCache {

    /** The minimum cacheable prompt of most Claude models, in tokens. */
    static final int DEFAULT_MINIMUM_TOKENS = 1024;

    /** How many blocks before a breakpoint the provider looks for a cached prefix. */
    private static final int LOOKBACK = 20;

    private static final int MAX_BREAKPOINTS = 4;

    private static final Duration FIVE_MINUTES = Duration.ofMinutes(5);

    private static final Duration ONE_HOUR = Duration.ofHours(1);

    private static final int PURGE_ABOVE = 4096;

    private final ConcurrentHashMap<Key, Expiry> entries = new ConcurrentHashMap<>();

    /**
     * Reads the blocks and breakpoints of a Messages request.
     * @param body the request body
     * @param totalTokens the estimate of the whole prompt; no prefix counts more
     * @return the plan, {@link Plan#NONE} without any breakpoint
     * @throws InvalidRequest if a {@code cache_control} is malformed or there are more
     * than four
     */
    static Plan plan(JsonNode body, int totalTokens) throws InvalidRequest {
        Reader reader = new Reader(totalTokens);
        JsonNode tools = body.get("tools");
        if (tools != null && tools.isArray()) {
            for (int i = 0; i < tools.size(); i++) {
                JsonNode tool = tools.get(i);
                reader.block("tools." + i, "tool", tool, Dialect.json(tool).length());
            }
        }
        JsonNode system = body.get("system");
        if (system != null) {
            reader.content("system", "system", system);
        }
        JsonNode messages = body.get("messages");
        for (int i = 0; i < messages.size(); i++) {
            JsonNode message = messages.get(i);
            JsonNode content = message.get("content");
            if (content != null) {
                String role = Dialect.string(message, "role");
                reader.content("messages." + i + ".content", (role != null) ? role : "", content);
            }
        }
        if (reader.breakpoints > MAX_BREAKPOINTS) {
            throw new InvalidRequest("A maximum of " + MAX_BREAKPOINTS
                    + " blocks with cache_control may be provided. Found " + reader.breakpoints + ".", null, null);
        }
        return (reader.breakpoints > 0) ? new Plan(List.copyOf(reader.boundaries)) : Plan.NONE;
    }

    /**
     * Finds what a request would read and write now, without changing the cache.
     * @param model the model (caches are per model)
     * @param plan the request's plan
     * @param now the simulator's time
     * @param minimumTokens the shortest cacheable prefix
     * @return the usage
     */
    Usage lookup(String model, Plan plan, Instant now, int minimumTokens) {
        int last = lastBreakpoint(plan, minimumTokens);
        if (last < 0) {
            return Usage.NONE;
        }
        List<Boundary> boundaries = plan.boundaries();
        int read = 0;
        for (int b = 0; b <= last; b++) {
            if (boundaries.get(b).ttl() == null) {
                continue;
            }
            for (int i = b; i >= Math.max(0, b - LOOKBACK + 1); i--) {
                Boundary boundary = boundaries.get(i);
                if (boundary.tokens() > read && boundary.tokens() >= minimumTokens
                        && isLive(new Key(model, boundary.hash()), now)) {
                    read = boundary.tokens();
                }
            }
        }
        int written5m = 0;
        int written1h = 0;
        int from = read;
        for (int b = 0; b <= last; b++) {
            Boundary boundary = boundaries.get(b);
            if (boundary.ttl() != null && boundary.tokens() > from && boundary.tokens() >= minimumTokens) {
                int segment = boundary.tokens() - from;
                if (ONE_HOUR.equals(boundary.ttl())) {
                    written1h += segment;
                }
                else {
                    written5m += segment;
                }
                from = boundary.tokens();
            }
        }
        return new Usage(read, written5m, written1h);
    }

    /**
     * Records that an admitted request read or wrote its prefixes now: every cacheable
     * breakpoint up to its last is (re)written with its TTL, and the prefix it read is
     * renewed.
     * @param model the model
     * @param plan the request's plan
     * @param usage what {@link #lookup} found
     * @param now the simulator's time
     * @param minimumTokens the shortest cacheable prefix
     */
    void commit(String model, Plan plan, Usage usage, Instant now, int minimumTokens) {
        int last = lastBreakpoint(plan, minimumTokens);
        for (int i = 0; i <= last; i++) {
            Boundary boundary = plan.boundaries().get(i);
            Key key = new Key(model, boundary.hash());
            if (boundary.ttl() != null && boundary.tokens() >= minimumTokens) {
                this.entries.merge(key, new Expiry(now.plus(boundary.ttl()), boundary.ttl()), Expiry::later);
            }
            else if (usage.read() > 0 && boundary.tokens() == usage.read()) {
                this.entries.computeIfPresent(key, (k, expiry) -> expiry.renewedAt(now));
            }
        }
        if (this.entries.size() > PURGE_ABOVE) {
            this.entries.values().removeIf((expiry) -> !expiry.at().isAfter(now));
        }
    }

    /** Forgets every cached prefix. */
    void clear() {
        this.entries.clear();
    }

    /**
     * The prefixes cached for a model now.
     * @param model the model
     * @param now the simulator's time
     * @return how many prefixes would be read
     */
    int size(String model, Instant now) {
        return (int) this.entries.entrySet()
            .stream()
            .filter((entry) -> entry.getKey().model().equals(model) && entry.getValue().at().isAfter(now))
            .count();
    }

    private boolean isLive(Key key, Instant now) {
        Expiry expiry = this.entries.get(key);
        return expiry != null && expiry.at().isAfter(now);
    }

    /** The index of the last breakpoint long enough to cache, or -1. */
    private static int lastBreakpoint(Plan plan, int minimumTokens) {
        List<Boundary> boundaries = plan.boundaries();
        for (int i = boundaries.size() - 1; i >= 0; i--) {
            Boundary boundary = boundaries.get(i);
            if (boundary.ttl() != null && boundary.tokens() >= minimumTokens) {
                return i;
            }
        }
        return -1;
    }

    /**
     * What a request reads from and writes to the cache.
     *
     * @param read tokens read from the cache
     * @param written5m tokens written with the 5-minute TTL
     * @param written1h tokens written with the 1-hour TTL
     */
    record Usage(int read, int written5m, int written1h) {

        static final Usage NONE = new Usage(0, 0, 0);

        int written() {
            return this.written5m + this.written1h;
        }

    }

    /**
     * The end of one block of a request's prompt.
     *
     * @param hash identifies the prompt up to and including this block
     * @param tokens the estimated tokens up to and including this block
     * @param ttl the TTL of this block's {@code cache_control}, or {@code null} when the
     * block is no breakpoint
     */
    record Boundary(String hash, int tokens, @Nullable Duration ttl) {
    }

    /**
     * The blocks of a request's prompt, in the order the provider caches them.
     *
     * @param boundaries the end of each block
     */
    record Plan(List<Boundary> boundaries) {

        static final Plan NONE = new Plan(List.of());

        boolean hasBreakpoints() {
            return this.boundaries.stream().anyMatch((boundary) -> boundary.ttl() != null);
        }

    }

    private record Key(String model, String hash) {
    }

    /** When an entry expires, and the TTL a read renews it by. */
    private record Expiry(Instant at, Duration ttl) {

        Expiry renewedAt(Instant now) {
            return later(this, new Expiry(now.plus(this.ttl), this.ttl));
        }

        static Expiry later(Expiry a, Expiry b) {
            return a.at().isAfter(b.at()) ? a : b;
        }

    }

    /** Walks the blocks of a request, hashing and counting as it goes. */
    private static final class Reader {

        private final int totalTokens;

        private final MessageDigest digest;

        private final List<Boundary> boundaries = new ArrayList<>();

        private long chars;

        private int breakpoints;

        Reader(int totalTokens) {
            this.totalTokens = totalTokens;
            try {
                this.digest = MessageDigest.getInstance("SHA-256");
            }
            catch (NoSuchAlgorithmException ex) {
                throw new IllegalStateException("Every Java platform has SHA-256", ex);
            }
        }

        void content(String path, String role, JsonNode content) throws InvalidRequest {
            if (content.isArray()) {
                for (int i = 0; i < content.size(); i++) {
                    JsonNode block = content.get(i);
                    block(path + "." + i, role, block, Dialect.blockChars(block));
                }
            }
            else {
                block(path, role, content, Dialect.contentChars(content));
            }
        }

        void block(String path, String role, JsonNode block, long blockChars) throws InvalidRequest {
            Duration ttl = ttl(path, block);
            JsonNode canonical = block;
            if (block.isObject() && block.has("cache_control")) {
                ObjectNode copy = ((ObjectNode) block).deepCopy();
                copy.remove("cache_control");
                canonical = copy;
            }
            this.digest.update((role + "\u0000" + Dialect.json(canonical) + "\u0000").getBytes(StandardCharsets.UTF_8));
            this.chars += blockChars;
            int tokens = (int) Math.min(this.totalTokens, this.chars / 4);
            this.boundaries.add(new Boundary(HexFormat.of().formatHex(digestSoFar()), tokens, ttl));
        }

        private byte[] digestSoFar() {
            try {
                return ((MessageDigest) this.digest.clone()).digest();
            }
            catch (CloneNotSupportedException ex) {
                throw new IllegalStateException("SHA-256 digests of the JDK can be cloned", ex);
            }
        }

        private @Nullable Duration ttl(String path, JsonNode block) throws InvalidRequest {
            JsonNode control = block.get("cache_control");
            if (control == null || control.isNull()) {
                return null;
            }
            String field = path + ".cache_control";
            if (!control.isObject() || !"ephemeral".equals(Dialect.string(control, "type"))) {
                throw new InvalidRequest(field + ".type: Input should be 'ephemeral'", field, null);
            }
            this.breakpoints++;
            JsonNode ttl = control.get("ttl");
            if (ttl == null || ttl.isNull() || "5m".equals(Dialect.string(control, "ttl"))) {
                return FIVE_MINUTES;
            }
            if ("1h".equals(Dialect.string(control, "ttl"))) {
                return ONE_HOUR;
            }
            throw new InvalidRequest(field + ".ttl: Input should be '5m' or '1h'", field, null);
        }

    }

}
