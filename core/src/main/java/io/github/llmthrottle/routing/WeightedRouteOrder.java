package io.github.llmthrottle.routing;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@link io.github.llmthrottle.Routing#WEIGHTED}: the first candidate of each invocation
 * is chosen by a smooth weighted round-robin, so that over any run of invocations the
 * first attempts follow the weights as closely as whole numbers allow (weights 70 and 30
 * send 7 of every 10 to the first candidate, spread out rather than 7 in a row); the
 * others follow in their listed order. A candidate of weight 0 is never first.
 */
public final class WeightedRouteOrder implements RouteOrder {

    private final long[] weights;

    private final long total;

    private final long[] current;

    private final ReentrantLock lock = new ReentrantLock();

    /**
     * Creates the order.
     * @param weights one weight per candidate, each at least 0, not all 0
     * @throws IllegalArgumentException when a weight is negative or all are 0
     */
    public WeightedRouteOrder(int[] weights) {
        long sum = 0;
        for (int weight : weights) {
            if (weight < 0) {
                throw new IllegalArgumentException("weights must not be negative, were " + Arrays.toString(weights));
            }
            sum += weight;
        }
        if (sum <= 0) {
            throw new IllegalArgumentException("weights must add up to more than 0, were " + Arrays.toString(weights));
        }
        this.weights = Arrays.stream(weights).asLongStream().toArray();
        this.total = sum;
        this.current = new long[weights.length];
    }

    @Override
    public int[] order(List<RouteCandidate> candidates) {
        if (candidates.size() != this.weights.length) {
            throw new IllegalArgumentException(
                    this.weights.length + " weights for " + candidates.size() + " candidates " + candidates);
        }
        int first = next();
        int[] order = new int[candidates.size()];
        order[0] = first;
        for (int i = 0, position = 1; i < order.length; i++) {
            if (i != first) {
                order[position++] = i;
            }
        }
        return order;
    }

    /** Nginx's smooth weighted round-robin step. */
    private int next() {
        this.lock.lock();
        try {
            int best = 0;
            for (int i = 0; i < this.current.length; i++) {
                this.current[i] += this.weights[i];
                if (this.current[i] > this.current[best]) {
                    best = i;
                }
            }
            this.current[best] -= this.total;
            return best;
        }
        finally {
            this.lock.unlock();
        }
    }

}
