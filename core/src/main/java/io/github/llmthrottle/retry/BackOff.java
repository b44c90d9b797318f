package io.github.llmthrottle.retry;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

import org.jspecify.annotations.Nullable;

/**
 * Computes how long to wait before a retry: exponential back-off with {@link Jitter} when
 * the server gave no wait, and the server's wait plus a little non-negative jitter when
 * it did.
 * <p>
 * Jitter on top of a server wait spreads clients that were all told the same instant,
 * without ever waking one early: the extra is at most {@code min(delay, serverWait / 10)}
 * (uniform for {@code FULL} and {@code DECORRELATED}, in its upper half for
 * {@code EQUAL}, none for {@code NONE}). A zero server wait therefore stays zero.
 * <p>
 * The random generator must be safe for the threads that use this instance; pass
 * {@link #THREAD_LOCAL_RANDOM} when in doubt. Not {@code ThreadLocalRandom.current()}
 * kept in a field: that instance draws from the seed of the thread that calls it, and a
 * thread that never called {@code current()} itself has the seed every such thread has in
 * every JVM, so instances retrying at once would all wait the same.
 */
public final class BackOff {

    /**
     * Draws from {@code ThreadLocalRandom.current()} of the calling thread on every call,
     * seeded differently per thread and per JVM.
     */
    public static final RandomGenerator THREAD_LOCAL_RANDOM = new RandomGenerator() {

        @Override
        public long nextLong() {
            return ThreadLocalRandom.current().nextLong();
        }

        @Override
        public double nextDouble() {
            return ThreadLocalRandom.current().nextDouble();
        }

    };

    private final RetrySettings settings;

    private final RandomGenerator random;

    /**
     * Creates a back-off calculator.
     * @param settings the retry settings
     * @param random the source of jitter
     */
    public BackOff(RetrySettings settings, RandomGenerator random) {
        this.settings = settings;
        this.random = random;
    }

    /**
     * The wait before retry {@code retry}.
     * @param retry the 1-based retry index
     * @param serverWait the server's wait, or {@code null} when it gave none (or it is
     * not to be respected)
     * @param previous the previous wait of this call, or {@code null} before the first
     * retry
     * @return the wait, never negative and never less than {@code serverWait}
     */
    public Duration waitBefore(int retry, @Nullable Duration serverWait, @Nullable Duration previous) {
        return (serverWait != null) ? honour(serverWait) : backOff(retry, previous);
    }

    /**
     * The back-off before retry {@code retry}, with jitter.
     * @param retry the 1-based retry index
     * @param previous the previous wait of this call, or {@code null} before the first
     * retry
     * @return the back-off, between zero and {@code maxDelay}
     */
    public Duration backOff(int retry, @Nullable Duration previous) {
        long cap = this.settings.maxDelay().toNanos();
        return switch (this.settings.jitter()) {
            case NONE -> Duration.ofNanos(exponentialNanos(retry));
            case FULL -> Duration.ofNanos(uniform(0, exponentialNanos(retry)));
            case EQUAL -> {
                long d = exponentialNanos(retry);
                yield Duration.ofNanos(d / 2 + uniform(0, d - d / 2));
            }
            case DECORRELATED -> {
                long base = this.settings.delay().toNanos();
                long last = (previous != null) ? Math.max(previous.toNanos(), base) : base;
                long upper = (last > Long.MAX_VALUE / 3) ? Long.MAX_VALUE : last * 3;
                yield Duration.ofNanos(Math.min(cap, uniform(base, upper)));
            }
        };
    }

    /**
     * The wait that honours a server wait: the server's value plus non-negative jitter.
     * @param serverWait the server's wait
     * @return the wait, never less than {@code serverWait} (nor zero)
     */
    public Duration honour(Duration serverWait) {
        if (serverWait.isNegative()) {
            serverWait = Duration.ZERO;
        }
        long spread = Math.min(this.settings.delay().toNanos(), serverWait.toNanos() / 10);
        long extra = switch (this.settings.jitter()) {
            case NONE -> 0;
            case FULL, DECORRELATED -> uniform(0, spread);
            case EQUAL -> spread / 2 + uniform(0, spread - spread / 2);
        };
        return serverWait.plusNanos(extra);
    }

    private long exponentialNanos(int retry) {
        double delay = this.settings.delay().toNanos();
        double grown = delay * Math.pow(this.settings.multiplier(), Math.max(0, retry - 1));
        long cap = this.settings.maxDelay().toNanos();
        return (grown >= cap) ? cap : (long) grown;
    }

    /** A value in {@code [low, high]}. */
    private long uniform(long low, long high) {
        if (high <= low) {
            return low;
        }
        return low + (long) (this.random.nextDouble() * (high - low));
    }

}
