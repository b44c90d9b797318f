package io.github.llmthrottle.quota;

import java.time.Clock;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;

import io.github.llmthrottle.limit.Dimension;
import org.jspecify.annotations.Nullable;

/**
 * Quota counters kept in this JVM ({@code llm.throttle.store=memory}). Counters whose
 * window has ended are dropped when the next one is created, so that the map holds only
 * the windows in force.
 *
 * <p>
 * A {@link #forget forgotten} counter (a tenant no longer tracked) leaves its count in a
 * compact record of fixed size per window, a count-min sketch of maxima: a few rows of
 * slots, the counter's key hashed (with a seed of this store's own) to one slot per row,
 * each slot holding the largest count folded into it. A counter created again starts from
 * the smallest of its slots, never less than it held, so a tenant cannot reset its quota
 * by cycling through more tenant names than are tracked; a tenant whose key shares its
 * slots with busier forgotten ones starts higher than it held (the safe side).
 */
public final class LocalQuotaStore implements QuotaStore {

    private final Clock clock;

    private final ReentrantLock lock = new ReentrantLock();

    private final Map<String, Entry> counters = new HashMap<>();

    /** Rows of the record of forgotten counters. */
    private static final int FORGOTTEN_ROWS = 2;

    /** Slots per row of the record of forgotten counters (a power of two). */
    static final int FORGOTTEN_SLOTS = 4096;

    /** The record of the forgotten counters of each window, by its end. */
    private final Map<Long, long[][]> forgotten = new HashMap<>();

    /** Keeps a request's tenant names from choosing their slots. */
    private final long seed = ThreadLocalRandom.current().nextLong();

    /**
     * Creates a store whose counters expire by {@code clock}.
     * @param clock the wall clock
     */
    public LocalQuotaStore(Clock clock) {
        this.clock = clock;
    }

    @Override
    public int tryAdd(List<Counter> counters, long tokens) {
        this.lock.lock();
        try {
            for (int i = 0; i < counters.size(); i++) {
                Counter counter = counters.get(i);
                if (Dimension.saturatedAdd(usedLocked(counter.key()), tokens) > counter.limit()) {
                    return i;
                }
            }
            addLocked(counters, tokens);
            return -1;
        }
        finally {
            this.lock.unlock();
        }
    }

    @Override
    public void add(List<Counter> counters, long tokens) {
        this.lock.lock();
        try {
            addLocked(counters, tokens);
        }
        finally {
            this.lock.unlock();
        }
    }

    @Override
    public long used(String key) {
        this.lock.lock();
        try {
            return usedLocked(key);
        }
        finally {
            this.lock.unlock();
        }
    }

    @Override
    public void forget(List<Counter> counters) {
        this.lock.lock();
        try {
            for (Counter counter : counters) {
                Entry entry = this.counters.remove(counter.key());
                if (entry != null && entry.used > 0) {
                    long[][] record = this.forgotten.computeIfAbsent(entry.expiresAt,
                            (end) -> new long[FORGOTTEN_ROWS][FORGOTTEN_SLOTS]);
                    long hash = hash(counter.key());
                    for (int row = 0; row < FORGOTTEN_ROWS; row++) {
                        int slot = slot(hash, row);
                        record[row][slot] = Math.max(record[row][slot], entry.used);
                    }
                }
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    private long usedLocked(String key) {
        Entry entry = this.counters.get(key);
        return (entry != null) ? entry.used : forgottenCount(key, null);
    }

    private void addLocked(List<Counter> counters, long tokens) {
        for (Counter counter : counters) {
            Entry entry = this.counters.get(counter.key());
            if (entry == null) {
                dropExpired();
                entry = new Entry(counter);
                entry.used = forgottenCount(counter.key(), entry.expiresAt);
                this.counters.put(counter.key(), entry);
            }
            entry.used = Dimension.saturatedAdd(entry.used, tokens);
        }
    }

    /**
     * What a forgotten counter held at most, {@code 0} if none like it was forgotten.
     * @param expiresAt the end of its window, {@code null} to look in every window
     */
    private long forgottenCount(String key, @Nullable Long expiresAt) {
        if (this.forgotten.isEmpty()) {
            return 0;
        }
        long hash = hash(key);
        long now = this.clock.millis();
        long count = 0;
        for (Map.Entry<Long, long[][]> window : this.forgotten.entrySet()) {
            if ((expiresAt != null) ? window.getKey().equals(expiresAt) : window.getKey() > now) {
                long[][] record = window.getValue();
                long least = Long.MAX_VALUE;
                for (int row = 0; row < FORGOTTEN_ROWS; row++) {
                    least = Math.min(least, record[row][slot(hash, row)]);
                }
                count = Math.max(count, least);
            }
        }
        return count;
    }

    private long hash(String key) {
        // FNV-1a over the characters from a seed of our own, then a 64-bit finaliser
        long hash = this.seed ^ 0xcbf29ce484222325L;
        for (int i = 0; i < key.length(); i++) {
            hash = (hash ^ key.charAt(i)) * 0x100000001b3L;
        }
        hash = (hash ^ (hash >>> 33)) * 0xff51afd7ed558ccdL;
        hash = (hash ^ (hash >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return hash ^ (hash >>> 33);
    }

    private static int slot(long hash, int row) {
        return (int) (hash >>> (32 * row)) & (FORGOTTEN_SLOTS - 1);
    }

    private void dropExpired() {
        long now = this.clock.millis();
        Iterator<Entry> entries = this.counters.values().iterator();
        while (entries.hasNext()) {
            if (entries.next().expiresAt <= now) {
                entries.remove();
            }
        }
        this.forgotten.keySet().removeIf((end) -> end <= now);
    }

    /** How many counters this store holds. */
    int size() {
        this.lock.lock();
        try {
            return this.counters.size();
        }
        finally {
            this.lock.unlock();
        }
    }

    private static final class Entry {

        private final long expiresAt;

        private long used;

        Entry(Counter counter) {
            this.expiresAt = counter.expiresAt().toEpochMilli();
        }

    }

}
