package io.github.llmthrottle.provider;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;

/**
 * What the prompt fields of a request hold, as {@link RequestBodyReader} reads them: the
 * characters of their text, the estimated tokens of their images and documents, and the
 * hashes of the sections Anthropic's prompt cache may hold, from which it works out the
 * {@link PromptPrefix prefixes} of the prompt.
 * <p>
 * Anthropic caches the prompt in the order tools, system, messages, up to each
 * {@code cache_control} breakpoint, and reads from its cache the longest prefix an
 * earlier call wrote, looking back up to {@value #LOOKBACK_BLOCKS} blocks before a
 * breakpoint. Each section is hashed (FNV-1a) on its own as it is read, whatever the
 * order of the fields in the JSON, and a prefix's hash combines the sections before it
 * with its own section's hash at the block where it ends.
 */
final class PromptTally {

    /** The prompt fields Anthropic caches, in the order it caches them. */
    private static final List<String> CACHED_SECTIONS = List.of("tools", "system", "messages");

    /** How many blocks before a breakpoint Anthropic looks back for a cached prefix. */
    private static final int LOOKBACK_BLOCKS = 20;

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;

    private static final long FNV_PRIME = 0x100000001b3L;

    /**
     * Whether the prompt marks a prefix for the cache: nothing is hashed otherwise.
     */
    private final boolean hashing;

    long characters;

    long mediaTokens;

    /** The cached section being read (an index of CACHED_SECTIONS), or -1. */
    private int section = -1;

    private final long[] hashes = { FNV_OFFSET, FNV_OFFSET, FNV_OFFSET };

    private final long[] sectionCharacters = new long[3];

    private final long[] sectionMedia = new long[3];

    /** The characters and media before the section being read. */
    private long charactersBefore;

    private long mediaBefore;

    private final List<Mark> marks = new ArrayList<>();

    /** Whether the field being read holds tool definitions. */
    private boolean tools;

    void enter(String field) {
        closeSection();
        this.section = CACHED_SECTIONS.indexOf(field);
        this.tools = "tools".equals(field) || "functions".equals(field);
        this.charactersBefore = this.characters;
        this.mediaBefore = this.mediaTokens;
    }

    private void closeSection() {
        if (this.section >= 0) {
            this.sectionCharacters[this.section] += this.characters - this.charactersBefore;
            this.sectionMedia[this.section] += this.mediaTokens - this.mediaBefore;
        }
    }

    /** Whether property names are text here: the schemas of tool definitions. */
    boolean countsNames() {
        return this.tools;
    }

    PromptTally(boolean hashing) {
        this.hashing = hashing;
    }

    void hash(char marker) {
        mix(marker);
    }

    void hashName(String name) {
        if (!hashes()) {
            return;
        }
        mix(':');
        for (int i = 0; i < name.length(); i++) {
            mix(name.charAt(i));
        }
    }

    void hash(JsonParser parser) {
        if (!hashes()) {
            return;
        }
        mix('"');
        if (parser.currentToken() == JsonToken.VALUE_STRING) {
            char[] chars = parser.getStringCharacters();
            int offset = parser.getStringOffset();
            int length = parser.getStringLength();
            for (int i = offset; i < offset + length; i++) {
                mix(chars[i]);
            }
        }
        else {
            String text = parser.getString();
            for (int i = 0; i < text.length(); i++) {
                mix(text.charAt(i));
            }
        }
    }

    private boolean hashes() {
        return this.hashing && this.section >= 0;
    }

    private void mix(char c) {
        if (hashes()) {
            this.hashes[this.section] = (this.hashes[this.section] ^ c) * FNV_PRIME;
        }
    }

    /** A block of a cached section ended: the prompt may be cached up to here. */
    void blockEnded(@Nullable Duration breakpoint) {
        if (this.section < 0) {
            return;
        }
        this.marks.add(new Mark(this.section, this.hashes[this.section],
                this.sectionCharacters[this.section] + this.characters - this.charactersBefore,
                this.sectionMedia[this.section] + this.mediaTokens - this.mediaBefore, breakpoint));
    }

    /**
     * The prefixes at each breakpoint and at the blocks the provider looks back to before
     * one, in the provider's order (tools, system, messages), shortest first.
     */
    List<PromptPrefix> prefixes() {
        closeSection();
        this.section = -1;
        if (this.marks.stream().noneMatch((mark) -> mark.breakpoint != null)) {
            return List.of();
        }
        List<Mark> ordered = new ArrayList<>(this.marks);
        // stable: the marks of one section stay in the order they were read
        ordered.sort((a, b) -> Integer.compare(a.section, b.section));
        List<PromptPrefix> prefixes = new ArrayList<>();
        int lastBreakpoint = -1;
        for (int i = ordered.size() - 1; i >= 0; i--) {
            if (ordered.get(i).breakpoint != null) {
                lastBreakpoint = i;
            }
            if (lastBreakpoint >= 0 && lastBreakpoint - i <= LOOKBACK_BLOCKS) {
                prefixes.add(0, prefix(ordered.get(i)));
            }
        }
        return prefixes;
    }

    private PromptPrefix prefix(Mark mark) {
        long hash = FNV_OFFSET;
        long characters = 0;
        long media = 0;
        for (int s = 0; s < mark.section; s++) {
            hash = (hash ^ this.hashes[s]) * FNV_PRIME;
            characters += this.sectionCharacters[s];
            media += this.sectionMedia[s];
        }
        hash = (hash ^ mark.hash) * FNV_PRIME;
        hash = (hash ^ mark.section) * FNV_PRIME;
        Duration ttl = (mark.breakpoint != null) ? mark.breakpoint : PromptPrefix.FIVE_MINUTES;
        return new PromptPrefix(hash, characters + mark.characters, media + mark.media, mark.breakpoint != null, ttl);
    }

    /** Where a block of a cached section ended, within its section. */
    private record Mark(int section, long hash, long characters, long media, @Nullable Duration breakpoint) {

    }

}
