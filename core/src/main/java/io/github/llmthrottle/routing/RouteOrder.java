package io.github.llmthrottle.routing;

import java.util.List;
import java.util.stream.IntStream;

/**
 * The order in which one invocation tries the candidates of a {@link ModelRouter}: the
 * routing strategy of {@link io.github.llmthrottle.Routing}.
 */
@FunctionalInterface
public interface RouteOrder {

    /**
     * Candidates in the order they are listed ({@code [model, fallback...]}).
     */
    RouteOrder ORDERED = (candidates) -> IntStream.range(0, candidates.size()).toArray();

    /**
     * The order of one invocation.
     * @param candidates the router's candidates
     * @return each candidate's index once, the first to try first
     */
    int[] order(List<RouteCandidate> candidates);

}
