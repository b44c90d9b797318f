package io.github.llmthrottle.routing;

import java.math.BigDecimal;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

import org.jspecify.annotations.Nullable;

/**
 * {@link io.github.llmthrottle.Routing#CHEAPEST}: candidates from the lowest estimated
 * cost of a typical request to the highest; the router then takes the first whose wait
 * fits the max-wait. The typical request has the average input and output tokens of the
 * successful calls of all the candidates (the same request is priced on each), or
 * {@value #NOMINAL_INPUT} input and {@value #NOMINAL_OUTPUT} output tokens before the
 * first one. Candidates without a price follow the priced ones in their listed order, as
 * do candidates of equal cost.
 */
public final class CheapestRouteOrder implements RouteOrder {

    /** Input tokens of the typical request before any call succeeded. */
    public static final long NOMINAL_INPUT = 1000;

    /** Output tokens of the typical request before any call succeeded. */
    public static final long NOMINAL_OUTPUT = 500;

    private final String client;

    private final CostEstimator costs;

    /**
     * Creates the order.
     * @param client the client of the candidates that name none (the router's)
     * @param costs the cost of a request to each model
     */
    public CheapestRouteOrder(String client, CostEstimator costs) {
        this.client = client;
        this.costs = costs;
    }

    @Override
    public int[] order(List<RouteCandidate> candidates) {
        TokenHistory history = candidates.stream()
            .map(RouteCandidate::history)
            .reduce(TokenHistory.NONE, TokenHistory::plus);
        long input = (history.calls() > 0) ? history.inputTokens() / history.calls() : NOMINAL_INPUT;
        long output = (history.calls() > 0) ? history.outputTokens() / history.calls() : NOMINAL_OUTPUT;
        BigDecimal[] cost = new BigDecimal[candidates.size()];
        for (int i = 0; i < cost.length; i++) {
            cost[i] = cost(candidates.get(i), input, output);
        }
        Comparator<BigDecimal> cheapestFirst = Comparator.nullsLast(Comparator.naturalOrder());
        return IntStream.range(0, cost.length)
            .boxed()
            .sorted((a, b) -> cheapestFirst.compare(cost[a], cost[b]))
            .mapToInt(Integer::intValue)
            .toArray();
    }

    /**
     * Whether any candidate has a price.
     * @param candidates the candidates
     * @return whether the order can tell any of them apart by cost
     */
    public boolean pricesAny(List<? extends RouteCandidate> candidates) {
        return candidates.stream().anyMatch((candidate) -> cost(candidate, NOMINAL_INPUT, NOMINAL_OUTPUT) != null);
    }

    private @Nullable BigDecimal cost(RouteCandidate candidate, long input, long output) {
        String client = candidate.client();
        return this.costs.estimate((client != null) ? client : this.client, candidate.model(), input, output);
    }

}
