package io.github.llmthrottle.limit;

import java.time.Clock;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Quota counters kept in this JVM ({@code llm.throttle.store=memory}). Counters whose
 * window has ended are dropped when the next one is created, so that the map holds only
 * the windows in force.
 */
public final class LocalQuotaStore implements QuotaStore {

    private final Clock clock;

    private final ReentrantLock lock = new ReentrantLock();

    private final Map<String, Entry> counters = new HashMap<>();

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

    private long usedLocked(String key) {
        Entry entry = this.counters.get(key);
        return (entry != null) ? entry.used : 0;
    }

    private void addLocked(List<Counter> counters, long tokens) {
        for (Counter counter : counters) {
            Entry entry = this.counters.get(counter.key());
            if (entry == null) {
                dropExpired();
                entry = new Entry(counter);
                this.counters.put(counter.key(), entry);
            }
            entry.used = Dimension.saturatedAdd(entry.used, tokens);
        }
    }

    private void dropExpired() {
        long now = this.clock.millis();
        Iterator<Entry> entries = this.counters.values().iterator();
        while (entries.hasNext()) {
            if (entries.next().expiresAt <= now) {
                entries.remove();
            }
        }
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
