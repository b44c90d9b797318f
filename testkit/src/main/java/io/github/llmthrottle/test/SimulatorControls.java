package io.github.llmthrottle.test;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The runtime controls of an {@link LlmSimulator} (limits, latency, output, faults,
 * statistics and reset), declared here and inherited as its public methods.
 */
public abstract sealed class SimulatorControls permits LlmSimulator {

    final SimulatorState state;

    SimulatorControls(SimulatorState state) {
        this.state = state;
    }

    private LlmSimulator self() {
        return (LlmSimulator) this;
    }

    // ---- limits

    /**
     * Sets the limits of a model. Existing buckets keep their level, capped at the new
     * capacity.
     * @param model the model name
     * @param limits the new limits
     * @return this simulator
     */
    public LlmSimulator setLimits(String model, ModelLimits limits) {
        this.state.setLimits(model, limits);
        return self();
    }

    /**
     * Sets the limits of every model that has no limits of its own.
     * @param limits the new default
     * @return this simulator
     */
    public LlmSimulator setDefaultLimits(ModelLimits limits) {
        this.state.setDefaultLimits(limits);
        return self();
    }

    /**
     * The limits currently enforced for a model.
     * @param model the model name
     * @return its limits, or the default limits
     */
    public ModelLimits limitsFor(String model) {
        return this.state.limitsFor(model);
    }

    /**
     * Reads the buckets of an API key and model without changing them.
     * @param apiKey the API key ({@code ""} for requests without one)
     * @param model the model name
     * @return the available tokens per dimension
     */
    public BucketLevels levels(String apiKey, String model) {
        return this.state.levels(apiKey, model);
    }

    /**
     * Fills every bucket of every key and model (they are created full on their next
     * use).
     * @return this simulator
     */
    public LlmSimulator refillBuckets() {
        this.state.limiter().clear();
        return self();
    }

    /**
     * Limits {@code count_tokens} requests, see
     * {@link LlmSimulator.Builder#countTokensRequestsPerMinute(long)}.
     * @param requestsPerMinute the limit per API key, 0 for unlimited
     * @return this simulator
     */
    public LlmSimulator setCountTokensRequestsPerMinute(long requestsPerMinute) {
        this.state.setCountTokensRequestsPerMinute(requestsPerMinute);
        return self();
    }

    // ---- prompt cache and downloads

    /**
     * Sets the shortest cacheable prompt prefix, see
     * {@link LlmSimulator.Builder#minimumCacheableTokens(int)}.
     * @param tokens the minimum, at least 1
     * @return this simulator
     */
    public LlmSimulator setMinimumCacheableTokens(int tokens) {
        this.state.setMinimumCacheableTokens(tokens);
        return self();
    }

    /**
     * Forgets every cached prompt prefix: the next request of each writes its prefix
     * again.
     * @return this simulator
     */
    public LlmSimulator clearPromptCache() {
        this.state.promptCache().clear();
        return self();
    }

    /**
     * How many prompt prefixes are cached for a model now (not expired on the simulator's
     * clock).
     * @param model the model name
     * @return the live cache entries of the model
     */
    public int cachedPrefixes(String model) {
        return this.state.promptCache().size(model, this.state.now());
    }

    /**
     * Sets the size of the following downloads, see
     * {@link LlmSimulator.Builder#downloadBytes(long)}.
     * @param bytes the size, not negative
     * @return this simulator
     */
    public LlmSimulator setDownloadBytes(long bytes) {
        this.state.setDownloadBytes(bytes);
        return self();
    }

    // ---- latency and output

    /**
     * Sets the latency of the following requests.
     * @param base the time before the response (before the first delta of a stream)
     * @param perOutputToken the extra time per generated output token
     * @return this simulator
     */
    public LlmSimulator setLatency(Duration base, Duration perOutputToken) {
        this.state.setLatency(base, perOutputToken);
        return self();
    }

    /**
     * Sets how many output tokens the following requests generate.
     * @param outputTokens the policy
     * @return this simulator
     */
    public LlmSimulator setOutputTokens(OutputTokens outputTokens) {
        this.state.setOutputTokens(outputTokens);
        return self();
    }

    // ---- faults

    /**
     * Appends faults to a model's script: each of the next requests for the model takes
     * the next fault (after any already scripted), before anything else is decided.
     * @param model the model name, or {@value LlmSimulator#ANY_MODEL} for a script that
     * any model's requests consume once the model's own script is empty
     * @param faults the faults, in order
     * @return this simulator
     */
    public LlmSimulator script(String model, Fault... faults) {
        this.state.faults().script(model, faults);
        return self();
    }

    /**
     * How many scripted faults are still waiting for a model.
     * @param model the model name, or {@value LlmSimulator#ANY_MODEL}
     * @return the number of faults not yet consumed
     */
    public int pendingScript(String model) {
        return this.state.faults().pendingScript(model);
    }

    /**
     * Sets the random fault probabilities of a model.
     * @param model the model name, or {@value LlmSimulator#ANY_MODEL} for models without
     * their own
     * @param faults the probabilities
     * @return this simulator
     */
    public LlmSimulator setRandomFaults(String model, RandomFaults faults) {
        this.state.faults().setRandomFaults(model, faults);
        return self();
    }

    /**
     * Re-seeds the random source of the random faults.
     * @param seed the seed
     * @return this simulator
     */
    public LlmSimulator setSeed(long seed) {
        this.state.faults().setSeed(seed);
        return self();
    }

    /**
     * Starts an outage: the model answers {@link Fault#overloaded()} (Anthropic 529,
     * OpenAI 503) until the simulator's clock has advanced by {@code duration}.
     * @param model the model name, or {@value LlmSimulator#ANY_MODEL}
     * @param duration how long the outage lasts
     * @return this simulator
     */
    public LlmSimulator outage(String model, Duration duration) {
        return outage(model, duration, Fault.overloaded());
    }

    /**
     * Starts an outage that answers with the given fault, for example
     * {@code Fault.status(503)}.
     * @param model the model name, or {@value LlmSimulator#ANY_MODEL}
     * @param duration how long the outage lasts
     * @param fault the answer during the outage
     * @return this simulator
     */
    public LlmSimulator outage(String model, Duration duration, Fault fault) {
        this.state.faults().outage(model, this.state.now().plus(SimulatorConfig.nonNegative(duration)), fault);
        return self();
    }

    /**
     * Ends an outage early.
     * @param model the model name, or {@value LlmSimulator#ANY_MODEL}
     * @return this simulator
     */
    public LlmSimulator endOutage(String model) {
        this.state.faults().endOutage(model);
        return self();
    }

    /**
     * Caps the requests in flight: a request that arrives while {@code maxInFlight} are
     * already being served is rejected with {@code rejectStatus} (429
     * {@code rate_limit_error} / {@code rate_limit_exceeded}, or 529, or any error
     * status), without {@code retry-after}.
     * @param model the model name, or {@value LlmSimulator#ANY_MODEL} to cap all requests
     * together
     * @param maxInFlight the most requests served at once; 0 removes the cap
     * @param rejectStatus the status for requests beyond the cap
     * @return this simulator
     */
    public LlmSimulator setConcurrencyLimit(String model, int maxInFlight, int rejectStatus) {
        this.state.faults().setConcurrencyLimit(model, maxInFlight, rejectStatus);
        return self();
    }

    /**
     * Overrides a header on every following response (success and error); a {@code null}
     * value removes the header. Scripted fault headers still win over this.
     * @param name the header name (case-insensitive)
     * @param value the value, or {@code null} to remove the header
     * @return this simulator
     */
    public LlmSimulator setHeader(String name, @Nullable String value) {
        this.state.faults().setHeader(name, value);
        return self();
    }

    /**
     * Removes all scripts, outages, random faults, concurrency caps and header overrides,
     * including those given to the builder.
     * @return this simulator
     */
    public LlmSimulator clearFaults() {
        this.state.faults().clear();
        return self();
    }

    // ---- stats

    /**
     * What the simulator saw for all models since start or the last reset.
     * @return a snapshot
     */
    public SimulatorStats stats() {
        return this.state.recorder().snapshot();
    }

    /**
     * What the simulator saw for one model since start or the last reset.
     * @param model the model name
     * @return a snapshot (all zero for a model never requested)
     */
    public SimulatorStats stats(String model) {
        return this.state.recorder().snapshot(model);
    }

    /**
     * Requests being served right now.
     * @return the requests in flight
     */
    public int inFlight() {
        return this.state.inFlight();
    }

    /**
     * Zeroes the statistics. The peak concurrency starts again from the requests in
     * flight.
     * @return this simulator
     */
    public LlmSimulator resetStats() {
        this.state.recorder().reset();
        return self();
    }

    /**
     * Restores the configuration the simulator was built with: limits, latency, output
     * policy, random faults (re-seeded), concurrency caps, the count_tokens limit, the
     * minimum cacheable prompt and the download size; removes scripts, outages, header
     * overrides and cached prompt prefixes; refills every bucket; zeroes the statistics.
     * The port, clock and API keys do not change.
     * @return this simulator
     */
    public LlmSimulator reset() {
        this.state.reset();
        return self();
    }

}
