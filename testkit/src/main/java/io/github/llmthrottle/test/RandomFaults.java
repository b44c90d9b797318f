package io.github.llmthrottle.test;

/**
 * Probabilities of random faults, drawn per request from the simulator's seeded random
 * source (so a run with the same seed and the same request order is reproducible). At
 * most one fault applies per request; random faults are drawn before admission, so a
 * faulted request debits no bucket.
 *
 * @param overloaded probability of {@link Fault#overloaded()} (Anthropic 529, OpenAI 503)
 * @param unavailable probability of a plain 503
 * @param serverError probability of a 500
 * @param connectionReset probability of {@link Fault#connectionReset()}
 */
public record RandomFaults(double overloaded, double unavailable, double serverError, double connectionReset) {

    private static final RandomFaults NONE = new RandomFaults(0, 0, 0, 0);

    /**
     * Validates the probabilities.
     * @param overloaded probability of an overloaded response
     * @param unavailable probability of a 503
     * @param serverError probability of a 500
     * @param connectionReset probability of a connection reset
     */
    public RandomFaults {
        check(overloaded);
        check(unavailable);
        check(serverError);
        check(connectionReset);
        if (overloaded + unavailable + serverError + connectionReset > 1.0 + 1e-9) {
            throw new IllegalArgumentException("Fault probabilities must not add up to more than 1");
        }
    }

    private static void check(double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException("A probability must be between 0 and 1, was " + p);
        }
    }

    /**
     * No random faults (the default).
     * @return the probabilities, all zero
     */
    public static RandomFaults none() {
        return NONE;
    }

    /**
     * Returns a copy with another probability of an overloaded response.
     * @param p the probability
     * @return the new probabilities
     */
    public RandomFaults withOverloaded(double p) {
        return new RandomFaults(p, this.unavailable, this.serverError, this.connectionReset);
    }

    /**
     * Returns a copy with another probability of a 503.
     * @param p the probability
     * @return the new probabilities
     */
    public RandomFaults withUnavailable(double p) {
        return new RandomFaults(this.overloaded, p, this.serverError, this.connectionReset);
    }

    /**
     * Returns a copy with another probability of a 500.
     * @param p the probability
     * @return the new probabilities
     */
    public RandomFaults withServerError(double p) {
        return new RandomFaults(this.overloaded, this.unavailable, p, this.connectionReset);
    }

    /**
     * Returns a copy with another probability of a connection reset.
     * @param p the probability
     * @return the new probabilities
     */
    public RandomFaults withConnectionReset(double p) {
        return new RandomFaults(this.overloaded, this.unavailable, this.serverError, p);
    }

    /**
     * Picks the fault for one uniform draw.
     * @param u a value in [0, 1)
     * @return the fault, or {@code null} for none
     */
    @org.jspecify.annotations.Nullable
    Fault pick(double u) {
        double edge = this.overloaded;
        if (u < edge) {
            return Fault.overloaded();
        }
        edge += this.unavailable;
        if (u < edge) {
            return Fault.status(503);
        }
        edge += this.serverError;
        if (u < edge) {
            return Fault.status(500);
        }
        edge += this.connectionReset;
        if (u < edge) {
            return Fault.connectionReset();
        }
        return null;
    }

    boolean isNone() {
        return this.overloaded + this.unavailable + this.serverError + this.connectionReset == 0;
    }

}
