package io.github.llmthrottle.limit;

import org.jspecify.annotations.Nullable;

/**
 * Where the adaptive concurrency limit of every model starts and how far it may grow
 * ({@code llm.throttle.concurrency.*}). Every model gets an AIMD limit
 * ({@link AdaptiveConcurrency}): it starts at {@code initial}, grows by one for each call
 * that succeeds while at least half the limit is in use, and shrinks by 10 % for each
 * call answered 429 or 529, or timed out. A model's {@code max-concurrency} replaces
 * {@code max} as its ceiling.
 *
 * <p>
 * The defaults: {@value #DEFAULT_INITIAL} to start with, which covers a model called at
 * 150 requests a minute with 20 s answers before the limit has grown at all (an agent
 * whose prompts are read from the provider's cache is bound by requests, not tokens, and
 * needs that many in flight from its first second; Netflix's own AIMD default of 20 held
 * such a model to waves of 20 calls until the limit had grown); and a ceiling of
 * {@value #DEFAULT_MAX}, the default queue capacity, so that without configuration a
 * model never holds more calls in flight than it lets wait (1,000 calls of 15 s each is
 * 4,000 requests a minute, the highest request tier providers publish). The ceiling only
 * matters when the provider neither refuses nor slows down: the limit otherwise settles
 * where the provider's 429s and 529s put it, or where the traffic needs it.
 *
 * @param initial the limit a model starts with, at least 1 (lowered to the ceiling if
 * above it)
 * @param max the ceiling of every model without {@code max-concurrency}, at least 1
 */
public record ConcurrencyLimits(int initial, int max) {

    /** The default initial limit. */
    public static final int DEFAULT_INITIAL = 50;

    /** The default ceiling. */
    public static final int DEFAULT_MAX = 1000;

    /** The defaults: start at 20, grow to at most 1,000. */
    public static final ConcurrencyLimits DEFAULTS = new ConcurrencyLimits(DEFAULT_INITIAL, DEFAULT_MAX);

    public ConcurrencyLimits {
        if (initial < 1) {
            throw new IllegalArgumentException("initial must be at least 1, was " + initial);
        }
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1, was " + max);
        }
    }

    /**
     * The ceiling of a model.
     * @param maxConcurrency the model's {@code max-concurrency}, or {@code null}
     * @return its ceiling
     */
    int ceiling(@Nullable Integer maxConcurrency) {
        return (maxConcurrency != null) ? maxConcurrency : this.max;
    }

}
