package io.github.llmthrottle.retry;

/**
 * How back-off delays are randomised, as defined in the AWS Architecture Blog's
 * "Exponential Backoff And Jitter". With
 * {@code d = min(maxDelay, delay * multiplier^(k-1))} for retry {@code k}:
 */
public enum Jitter {

    /** Sleep exactly {@code d}. */
    NONE,

    /** Sleep a random time in {@code [0, d]}. */
    FULL,

    /** Sleep {@code d/2} plus a random time in {@code [0, d/2]}. */
    EQUAL,

    /**
     * Sleep {@code min(maxDelay, random(delay, previous * 3))}, where {@code previous} is
     * the previous sleep ({@code delay} before the first retry).
     */
    DECORRELATED

}
