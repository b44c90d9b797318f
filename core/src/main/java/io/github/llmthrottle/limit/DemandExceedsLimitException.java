package io.github.llmthrottle.limit;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.RejectionReason;

/**
 * Thrown at once, without queueing, when one attempt needs more than a whole bucket of
 * its model holds (for instance 40,000 input tokens against a 30,000
 * input-tokens-per-minute limit, or a lower limit the provider reported). Such a call
 * could never be admitted, however long it waited, so it is a throttling failure with no
 * retry time: a fallback model with larger limits may still take it.
 */
public class DemandExceedsLimitException extends LlmThrottleException {

    private final Dimension dimension;

    private final long demand;

    private final long limit;

    public DemandExceedsLimitException(String client, String model, Dimension dimension, long demand, long limit) {
        super("Request needs " + demand + " " + dimension + " but the limit of client '" + client + "', model '" + model
                + "' is " + limit + " " + dimension + " per minute; it can never be admitted", client, model, null,
                null);
        this.dimension = dimension;
        this.demand = demand;
        this.limit = limit;
    }

    /**
     * The dimension the request does not fit.
     * @return the dimension
     */
    public Dimension getDimension() {
        return this.dimension;
    }

    /**
     * What the request needs in that dimension.
     * @return the demand
     */
    public long getDemand() {
        return this.demand;
    }

    /**
     * The per-minute limit (and bucket capacity) it exceeds.
     * @return the limit
     */
    public long getLimit() {
        return this.limit;
    }

    @Override
    public RejectionReason getRejectionReason() {
        return RejectionReason.MAX_WAIT;
    }

}
