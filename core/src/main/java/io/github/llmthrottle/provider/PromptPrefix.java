package io.github.llmthrottle.provider;

import java.time.Duration;

/**
 * A prefix of a prompt the provider may hold in its prompt cache (Anthropic's
 * {@code cache_control} breakpoints): the tools, system and messages up to the end of one
 * content block, in the order the provider caches them, identified by a hash of their
 * content. A prefix that ends at a breakpoint is written to the cache when the call is
 * answered; a prefix that ends at another block is read from the cache only when an
 * earlier call wrote it (the provider looks back for such blocks).
 *
 * @param hash a 64-bit hash of the prefix's content
 * @param textCharacters characters of text in the prefix
 * @param mediaTokens estimated tokens of the prefix's images and documents
 * @param breakpoint whether a {@code cache_control} marks the end of this prefix
 * @param ttl how long the provider keeps the prefix after it was written or read: 5
 * minutes, or 1 hour for {@code "ttl": "1h"} (meaningful for breakpoints only)
 */
public record PromptPrefix(long hash, long textCharacters, long mediaTokens, boolean breakpoint, Duration ttl) {

    /** The provider's default cache lifetime. */
    public static final Duration FIVE_MINUTES = Duration.ofMinutes(5);

    /** The lifetime of a breakpoint marked {@code "ttl": "1h"}. */
    public static final Duration ONE_HOUR = Duration.ofHours(1);

}
