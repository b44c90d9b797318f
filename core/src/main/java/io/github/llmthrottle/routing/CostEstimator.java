package io.github.llmthrottle.routing;

import java.math.BigDecimal;

import org.jspecify.annotations.Nullable;

/**
 * The estimated cost of a request to a model, from its configured prices: what
 * {@link io.github.llmthrottle.Routing#CHEAPEST} routing compares. Implemented by the
 * component that knows the prices ({@code models.MODEL.price.*}); a Spring bean of this
 * type is picked up by the {@code @Throttled} routing.
 */
@FunctionalInterface
public interface CostEstimator {

    /**
     * The cost of one request.
     * @param client the client of the model
     * @param model the model
     * @param inputTokens the estimated input tokens
     * @param outputTokens the estimated output tokens
     * @return the cost in the configured currency, or {@code null} when the model has no
     * price
     */
    @Nullable BigDecimal estimate(String client, String model, long inputTokens, long outputTokens);

}
