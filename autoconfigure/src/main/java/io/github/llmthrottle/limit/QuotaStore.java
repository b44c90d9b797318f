package io.github.llmthrottle.limit;

import java.time.Instant;
import java.util.List;

/**
 * Where the token counts of long-window quotas live: {@link LocalQuotaStore} in this JVM,
 * {@link RedisQuotaStore} shared by every instance that uses the same Redis server. One
 * counter per quota and window (its key names the window, {@code ...:day:2026-11-30}),
 * created at zero and dropped after its window has ended.
 */
public interface QuotaStore {

    /**
     * Adds {@code tokens} to every counter, unless one of them would go over its limit:
     * then adds nothing. All or nothing, atomically with respect to other callers.
     * @param counters the counters
     * @param tokens how many tokens, at least 0
     * @return {@code -1} when added, else the index of the first counter that would have
     * gone over its limit
     * @throws BucketStoreUnavailableException when a shared store cannot be reached and
     * is configured to reject
     */
    int tryAdd(List<Counter> counters, long tokens);

    /**
     * Adds {@code tokens} to every counter whatever their limits (a negative number takes
     * them back): the correction of a reservation to what a call used.
     * @param counters the counters
     * @param tokens how many tokens
     */
    void add(List<Counter> counters, long tokens);

    /**
     * What a counter holds now.
     * @param key the counter's key
     * @return the tokens counted, 0 for a counter that does not exist
     */
    long used(String key);

    /**
     * Forgets counters whose owner (a tenant named in requests) is no longer tracked, so
     * that names that requests make up cannot grow memory without bound. Nothing they
     * count is lost: a counter asked for again comes back with at least what it held. A
     * store whose counters live elsewhere and expire there has nothing to do.
     * @param counters the counters
     */
    default void forget(List<Counter> counters) {
    }

    /**
     * One counter of one quota and window.
     *
     * @param key its key, naming the quota and the window
     * @param limit the quota
     * @param expiresAt when it may be dropped: after its window has ended
     */
    record Counter(String key, long limit, Instant expiresAt) {
    }

}
