package io.github.llmthrottle.store;

/**
 * Where the settlement of one {@link Reservation} goes: the buckets it was taken from, in
 * the store that took them (the Redis server, or the local buckets a shared store fell
 * back to), whichever store is up when it settles.
 */
@FunctionalInterface
public interface Settlement {

    /**
     * Takes {@code amounts[i]} more from the {@code i}-th bucket of the reservation, a
     * negative amount giving back (a bucket never fills above its capacity, and may be
     * overdrawn). Never waits for a shared store: its command is sent, and
     * {@code givenBack} runs once it has been applied when something was given back (so
     * that waiting calls look again).
     * @param amounts the amount of each bucket, in the reservation's order
     * @param givenBack what to do once a give-back has been applied in a shared store
     */
    void adjust(long[] amounts, Runnable givenBack);

}
