package io.github.llmthrottle.client;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

import io.github.llmthrottle.provider.LlmRequest;
import io.github.llmthrottle.provider.PromptPrefix;
import io.github.llmthrottle.time.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * What the provider's prompt cache is expected to hold, per model: the prefixes (by hash)
 * of prompts that were answered within their TTL. A prefix is entered when a call whose
 * prompt marks it with a breakpoint is answered (the provider makes a cache entry
 * available once its response begins) and lives for its TTL from then (5 minutes, or 1
 * hour), renewed by each later call that marks it again; a prefix the provider did not
 * cache (the usage of its call shows neither a cache write nor a read: shorter than the
 * model's minimum, or a model without caching) is remembered as not cacheable for as
 * long. Admission reserves only the part of a prompt after the longest prefix expected in
 * the cache; settlement corrects any miss. Memory is bounded: past
 * {@value #DEFAULT_MAX_ENTRIES} prefixes the least recently used are forgotten (their
 * calls are then reserved in full, which only errs on the safe side).
 */
public final class PromptCache {

    static final int DEFAULT_MAX_ENTRIES = 10_000;

    private final TimeSource time;

    private final ReentrantLock lock = new ReentrantLock();

    private final Map<Key, Entry> entries;

    /**
     * Creates an empty cache model.
     * @param time the clock of the TTLs
     * @param maxEntries the most prefixes remembered
     */
    public PromptCache(TimeSource time, int maxEntries) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1, was " + maxEntries);
        }
        this.time = time;
        this.entries = new LinkedHashMap<>(64, 0.75f, true) {

            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, Entry> eldest) {
                return size() > maxEntries;
            }

        };
    }

    public PromptCache(TimeSource time) {
        this(time, DEFAULT_MAX_ENTRIES);
    }

    /**
     * The longest prefix of {@code request} the provider is expected to read from its
     * cache.
     * @param model the model
     * @param request the request
     * @return the prefix, or {@code null} when none is expected cached
     */
    public @Nullable PromptPrefix expectedRead(String model, LlmRequest request) {
        if (request.cachePrefixes().isEmpty()) {
            return null;
        }
        long now = this.time.nanoTime();
        this.lock.lock();
        try {
            for (int i = request.cachePrefixes().size() - 1; i >= 0; i--) {
                PromptPrefix prefix = request.cachePrefixes().get(i);
                Entry entry = this.entries.get(new Key(model, prefix.hash()));
                if (entry != null && entry.cached && now - entry.expiresAt < 0) {
                    return prefix;
                }
            }
            return null;
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * What a call counts against the provider's input tokens: the part of {@code request}
     * after the longest prefix expected in the cache, or all of it.
     * @param model the model
     * @param request the request
     * @return the request to estimate for admission
     */
    public LlmRequest counted(String model, LlmRequest request) {
        PromptPrefix read = expectedRead(model, request);
        return (read != null) ? request.after(read) : request;
    }

    /**
     * A call is sent: the prefixes its breakpoints mark are in the cache from now on for
     * their TTL, unless they were found not cacheable.
     * @param model the model
     * @param request the request
     * @return whether a prefix that was not expected in the cache now is (calls waiting
     * with the same prompt may now ask for less)
     */
    public boolean sent(String model, LlmRequest request) {
        return eachBreakpoint(model, request, (key, prefix, now) -> {
            Entry entry = this.entries.get(key);
            boolean expired = entry != null && now - entry.expiresAt >= 0;
            if (entry != null && !entry.cached && !expired) {
                // found not cacheable: it stays so for its TTL
                return false;
            }
            this.entries.put(key, new Entry(true, now + prefix.ttl().toNanos()));
            return entry == null || !entry.cached || expired;
        });
    }

    /**
     * A call that {@link #sent} entered prefixes was refused or not answered: the
     * provider wrote nothing, so the prefixes are no longer expected in the cache.
     * @param model the model
     * @param request the request
     */
    public void refused(String model, LlmRequest request) {
        eachBreakpoint(model, request, (key, prefix, now) -> {
            Entry entry = this.entries.get(key);
            return entry != null && entry.cached && this.entries.remove(key) != null;
        });
    }

    /**
     * The usage of a call came: if the provider wrote or read its cache, the prefixes the
     * call's breakpoints mark are in the cache for their TTL; if it did neither, they are
     * not cacheable (too short for the model, or the model caches nothing) for as long.
     * @param model the model
     * @param request the request
     * @param cacheUsed whether the usage shows a cache write or read
     */
    public void settled(String model, LlmRequest request, boolean cacheUsed) {
        eachBreakpoint(model, request, (key, prefix,
                now) -> this.entries.put(key, new Entry(cacheUsed, now + prefix.ttl().toNanos())) == null);
    }

    /**
     * Applies {@code update} to each prefix that ends at one of the request's
     * breakpoints, under the lock.
     * @return whether any update changed what is expected in the cache
     */
    private boolean eachBreakpoint(String model, LlmRequest request, BreakpointUpdate update) {
        if (request.cachePrefixes().isEmpty()) {
            return false;
        }
        long now = this.time.nanoTime();
        boolean changed = false;
        this.lock.lock();
        try {
            for (PromptPrefix prefix : request.cachePrefixes()) {
                if (prefix.breakpoint()) {
                    changed |= update.apply(new Key(model, prefix.hash()), prefix, now);
                }
            }
            return changed;
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * How many prefixes are remembered (cached or not cacheable, expired or not).
     * @return the number of entries
     */
    public int size() {
        this.lock.lock();
        try {
            return this.entries.size();
        }
        finally {
            this.lock.unlock();
        }
    }

    private record Key(String model, long hash) {

    }

    /** A change to what is known of one prefix, made under the lock. */
    @FunctionalInterface
    private interface BreakpointUpdate {

        boolean apply(Key key, PromptPrefix prefix, long now);

    }

    /**
     * What is known of one prefix.
     *
     * @param cached whether the provider holds it ({@code false}: it did not cache it)
     * @param expiresAt until when, on the monotonic clock
     */
    private record Entry(boolean cached, long expiresAt) {

    }

}
