package io.github.llmthrottle.store;

/**
 * One bucket of one dimension (for example the input tokens of one client and model),
 * holding one minute's worth of its limit and refilling continuously. The admission queue
 * only talks to buckets through this handle, so that a shared store (Redis) can stand in
 * for the local one. The available amount may be negative after
 * {@link #forceConsume(long)}: the bucket then owes that much before anything else fits.
 *
 * <p>
 * A handle of a {@link SharedBucketStore} never waits for the store, except in
 * {@link #tryConsume(long)}: what it holds ({@link #availableTokens()},
 * {@link #nanosToWaitFor(long)}) is what the store last said, refilled since, and the
 * changes ({@link #forceConsume(long)}, {@link #refund(long)}, {@link #limitTo(long)},
 * {@link #reconfigure(long)}) are sent without waiting for the answer.
 */
public interface TokenBucket {

    /**
     * The bucket's capacity, which is also its per-minute limit.
     * @return the capacity
     */
    long capacity();

    /**
     * What the bucket holds now.
     * @return available tokens, negative when overdrawn
     */
    long availableTokens();

    /**
     * Takes {@code tokens} if the bucket holds them.
     * @param tokens how many
     * @return whether they were taken
     */
    boolean tryConsume(long tokens);

    /**
     * How long until the bucket will hold {@code tokens}, without taking them.
     * @param tokens how many
     * @return nanoseconds to wait, {@code 0} if they are available now,
     * {@link Long#MAX_VALUE} if they never will be (more than the capacity)
     */
    long nanosToWaitFor(long tokens);

    /**
     * Takes {@code tokens} whatever the bucket holds, overdrawing it if need be.
     * @param tokens how many
     */
    void forceConsume(long tokens);

    /**
     * Gives back {@code tokens}, never filling the bucket above its capacity.
     * @param tokens how many
     */
    void refund(long tokens);

    /**
     * Lowers what the bucket holds to at most {@code tokens}; a bucket holding less keeps
     * it.
     * @param tokens the most the bucket may hold
     */
    default void limitTo(long tokens) {
        long available = availableTokens();
        if (available > tokens) {
            forceConsume(available - tokens);
        }
    }

    /**
     * Changes the per-minute limit (and capacity), keeping what the bucket holds (reduced
     * to the new capacity if that is lower).
     * @param limitPerMinute the new limit
     */
    void reconfigure(long limitPerMinute);

    /**
     * The most the bucket holds at once: its capacity, unless {@link #limitBurst(long)}
     * lowered it to the burst the provider can take.
     * @return the burst capacity
     */
    default long burstCapacity() {
        return capacity();
    }

    /**
     * Caps what the bucket holds at once below a minute's worth, the refill rate staying
     * the per-minute limit: for a provider that enforces its per-minute limit over a
     * shorter interval. A store that cannot do this ignores it (the default).
     * @param burst the most the bucket may hold, {@link #capacity()} for no cap
     */
    default void limitBurst(long burst) {
    }

}
