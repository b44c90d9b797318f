package io.github.llmthrottle.quota;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

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
     * Adds {@code tokens} to every counter unless one of them would go over its limit, as
     * {@link #tryAdd} does, and says where to correct what was added: to the same store
     * (for a shared store, the same connection, or the local counters that stood in for
     * it), whichever answers when the correction comes.
     * @param counters the counters
     * @param tokens how many tokens, at least 0
     * @return what was taken, or which counter would have gone over its limit
     * @throws BucketStoreUnavailableException when a shared store cannot be reached and
     * is configured to reject
     */
    default Take take(List<Counter> counters, long tokens) {
        int exceeded = tryAdd(counters, tokens);
        return (exceeded >= 0) ? Take.refused(exceeded) : new Take(-1, (delta) -> add(counters, delta));
    }

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
     * The answer to one {@link #take}.
     *
     * @param exceeded {@code -1} when taken, else the index of the first counter that
     * would have gone over its limit
     * @param correction where to correct what was taken, {@code null} when nothing was
     * @param now the store's time when it answered, {@code null} for this instance's: the
     * window a refusal counts in, and so when it resets (a shared store's counters run on
     * its server's time)
     */
    record Take(int exceeded, @Nullable Correction correction, @Nullable Instant now) {

        /**
         * An answer on this instance's time.
         * @param exceeded {@code -1} when taken, else the index of the first counter that
         * would have gone over its limit
         * @param correction where to correct what was taken, {@code null} when nothing
         * was
         */
        public Take(int exceeded, @Nullable Correction correction) {
            this(exceeded, correction, null);
        }

        public static Take refused(int exceeded) {
            return new Take(exceeded, null);
        }

        /**
         * A refusal by a store whose counters run on another clock.
         * @param exceeded the index of the first counter that would have gone over its
         * limit
         * @param now the store's time when it refused
         * @return the answer
         */
        public static Take refused(int exceeded, Instant now) {
            return new Take(exceeded, null, now);
        }

    }

    /**
     * Corrects what one {@link #take} added, in the store that took it.
     */
    @FunctionalInterface
    interface Correction {

        /** Nothing to correct: nothing was counted. */
        Correction NONE = (tokens) -> {
        };

        /**
         * Adds {@code tokens} (a negative number takes them back) to the counters of the
         * take, whatever their limits; never waits for a shared store.
         * @param tokens how many tokens
         */
        void add(long tokens);

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
