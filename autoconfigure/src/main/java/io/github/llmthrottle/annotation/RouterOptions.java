package io.github.llmthrottle.annotation;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

import io.github.llmthrottle.FallbackOn;
import io.github.llmthrottle.InvalidThrottleConfigurationException;
import io.github.llmthrottle.Routing;
import io.github.llmthrottle.Throttled;
import io.github.llmthrottle.routing.CheapestRouteOrder;
import io.github.llmthrottle.routing.CostEstimator;
import io.github.llmthrottle.routing.ModelRouter;
import io.github.llmthrottle.routing.RouteCandidate;
import io.github.llmthrottle.routing.RouteOrder;
import io.github.llmthrottle.routing.WeightedRouteOrder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Applies a {@code @Throttled} method's {@link Throttled#routing() routing strategy} and
 * {@link Throttled#fallbackOn() refusals to route around} to its router, checking them at
 * startup: weights that do not match the candidates stop the application with a message
 * naming the method; {@link Routing#CHEAPEST} without any price falls back to
 * {@link Routing#ORDERED} with a warning.
 */
final class RouterOptions {

    private static final Log logger = LogFactory.getLog(RouterOptions.class);

    private RouterOptions() {
    }

    /**
     * The method's router.
     * @param router the router over the method's candidates, in their listed order
     * @param candidates the candidates, {@code [model, fallback...]}
     * @param annotation the method's annotation
     * @param costs the cost of a request to a model, or {@code null} when nothing prices
     * models
     * @param description the method as messages name it
     * @return the router with the method's strategy and refusals
     */
    static ModelRouter configure(ModelRouter router, List<? extends RouteCandidate> candidates, Throttled annotation,
            @Nullable CostEstimator costs, String description) {
        ModelRouter configured = router.withOrder(order(candidates, annotation, costs, description));
        FallbackOn[] fallbackOn = annotation.fallbackOn();
        return (fallbackOn.length > 0) ? configured.withFallbackOn(Set.of(fallbackOn)) : configured;
    }

    private static RouteOrder order(List<? extends RouteCandidate> candidates, Throttled annotation,
            @Nullable CostEstimator costs, String description) {
        int[] weights = annotation.weights();
        if (annotation.routing() != Routing.WEIGHTED && weights.length > 0) {
            throw invalid(description, "@Throttled weights " + Arrays.toString(weights) + " are set, but routing is "
                    + annotation.routing(), "Set routing = Routing.WEIGHTED, or remove weights.");
        }
        return switch (annotation.routing()) {
            case ORDERED -> RouteOrder.ORDERED;
            case WEIGHTED -> weighted(candidates, weights, description);
            case CHEAPEST -> cheapest(candidates, costs, description);
        };
    }

    private static RouteOrder weighted(List<? extends RouteCandidate> candidates, int[] weights, String description) {
        String action = "Give one weight (0 or more, not all 0) per model of " + candidates
                + ", in that order: the model first, then each fallback.";
        if (weights.length != candidates.size()) {
            throw invalid(description, "@Throttled(routing = WEIGHTED) has " + weights.length + " weights "
                    + Arrays.toString(weights) + " for " + candidates.size() + " models " + candidates, action);
        }
        try {
            return new WeightedRouteOrder(weights);
        }
        catch (IllegalArgumentException ex) {
            throw invalid(description, "@Throttled(routing = WEIGHTED) " + ex.getMessage(), action);
        }
    }

    private static RouteOrder cheapest(List<? extends RouteCandidate> candidates, @Nullable CostEstimator costs,
            String description) {
        if (costs != null) {
            CheapestRouteOrder order = new CheapestRouteOrder(clientOf(candidates), costs);
            if (order.pricesAny(candidates)) {
                return order;
            }
        }
        logger.warn("@Throttled " + description + " routes to the cheapest model, but none of " + candidates
                + " has a price (llm.throttle.clients.NAME.models.MODEL.price.*): it is routed in order");
        return RouteOrder.ORDERED;
    }

    private static String clientOf(List<? extends RouteCandidate> candidates) {
        String client = candidates.get(0).client();
        return (client != null) ? client : "";
    }

    private static InvalidThrottleConfigurationException invalid(String description, String reason, String action) {
        return new InvalidThrottleConfigurationException(description, null, reason, action);
    }

}
