package io.github.llmthrottle;

/**
 * How a {@link Throttled} method picks the model its invocation tries first among
 * {@code [model, fallback...]}. Whatever the first choice, the other candidates follow in
 * the order the strategy gives when a call fails for a throttling reason (or for a
 * {@link FallbackOn} reason).
 */
public enum Routing {

    /**
     * The first candidate that can be admitted within the max-wait, in the order
     * {@code [model, fallback...]}.
     */
    ORDERED,

    /**
     * First attempts split over the candidates in proportion to
     * {@link Throttled#weights()} (a smooth weighted round-robin: exact proportions, no
     * randomness); after a failure the other candidates are tried in their order.
     */
    WEIGHTED,

    /**
     * The candidate with the lowest estimated cost of a typical request of the method
     * whose wait fits the max-wait, then the next cheapest. Needs prices
     * ({@code models.MODEL.price.*}); without any, the method is routed as
     * {@link #ORDERED} and a warning is logged at startup.
     */
    CHEAPEST

}
