package io.github.llmthrottle.benchmarks.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.github.llmthrottle.benchmarks.MessagesBodies;

/**
 * One load scenario, the same for every contender: the provider's limits and latency, the
 * request bodies, and the offered load (calls started at a fixed rate, each on its own
 * thread, for a fixed time, whatever happens to earlier calls).
 *
 * @param model the model called
 * @param requestsPerMinute the provider's RPM
 * @param inputTokensPerMinute the provider's ITPM
 * @param outputTokensPerMinute the provider's OTPM
 * @param latency the provider's time to answer one call
 * @param maxTokens {@code max_tokens} of every call
 * @param outputTokens output tokens of every answer
 * @param prompts the user message of each call, used in turn (of the first half of the
 * calls when {@code laterPrompts} is not empty)
 * @param laterPrompts the user messages of the second half of the calls, used in turn;
 * empty when the prompt sizes do not change during the run
 * @param callsPerSecond the offered load
 * @param duration how long the load is offered
 * @param drain whether the provider's buckets are emptied before the load starts, so that
 * the run measures the steady refill rather than a minute's worth of stored burst
 * @param deadline how long to wait for the last calls after the load ends; calls still
 * running then count as failed
 * @param bucketWindow how much of each per-minute limit the provider's buckets hold (a
 * minute, or less for a provider that enforces its limit over a shorter interval)
 * @param burst calls offered all at once when the load starts, before the calls offered
 * at {@code callsPerSecond}
 */
public record LoadScenario(String model, long requestsPerMinute, long inputTokensPerMinute, long outputTokensPerMinute,
        Duration latency, int maxTokens, int outputTokens, List<String> prompts, List<String> laterPrompts,
        double callsPerSecond, Duration duration, boolean drain, Duration deadline, Duration bucketWindow, int burst) {

    /** The default model. */
    public static final String MODEL = "claude-sonnet-4-5";

    public LoadScenario {
        if (requestsPerMinute <= 0 || inputTokensPerMinute <= 0 || outputTokensPerMinute <= 0) {
            throw new IllegalArgumentException("Limits must be positive, were RPM " + requestsPerMinute + ", ITPM "
                    + inputTokensPerMinute + ", OTPM " + outputTokensPerMinute);
        }
        if (maxTokens <= 0 || outputTokens <= 0 || outputTokens > maxTokens) {
            throw new IllegalArgumentException(
                    "Answers must be of 1 to max_tokens tokens and max_tokens positive, were " + outputTokens + " and "
                            + maxTokens);
        }
        prompts = List.copyOf(prompts);
        laterPrompts = List.copyOf(laterPrompts);
    }

    /**
     * A scenario whose provider's buckets hold a whole minute, without a burst at the
     * start.
     * @param model the model called
     * @param requestsPerMinute the provider's RPM
     * @param inputTokensPerMinute the provider's ITPM
     * @param outputTokensPerMinute the provider's OTPM
     * @param latency the provider's time to answer one call
     * @param maxTokens {@code max_tokens} of every call
     * @param outputTokens output tokens of every answer
     * @param prompts the user message of each call
     * @param laterPrompts the user messages of the second half of the calls
     * @param callsPerSecond the offered load
     * @param duration how long the load is offered
     * @param drain whether the provider's buckets are emptied first
     * @param deadline how long to wait for the last calls after the load ends
     */
    public LoadScenario(String model, long requestsPerMinute, long inputTokensPerMinute, long outputTokensPerMinute,
            Duration latency, int maxTokens, int outputTokens, List<String> prompts, List<String> laterPrompts,
            double callsPerSecond, Duration duration, boolean drain, Duration deadline) {
        this(model, requestsPerMinute, inputTokensPerMinute, outputTokensPerMinute, latency, maxTokens, outputTokens,
                prompts, laterPrompts, callsPerSecond, duration, drain, deadline, Duration.ofMinutes(1), 0);
    }

    /**
     * A start-up burst against a provider whose buckets hold 20 s of each limit (it
     * enforces its per-minute limits over 20 s): the provider of
     * {@link #twiceTheLimit(Duration)} (RPM 600, ITPM 60,000, OTPM 60,000, prompts of 200
     * input tokens on average, so 5 calls a second by ITPM), its buckets full (no drain),
     * and 256 callers: 128 arrive at once when the load starts, the other 128 at twice
     * the binding limit (10 calls a second, 12.8 s). The burst needs about 25,600 input
     * tokens: it fits in a minute's bucket (60,000) but not in 20 s of it (20,000).
     * @param bucketWindow how much of each limit the provider's buckets hold: 20 s for
     * the scenario, a minute for the case to compare it with
     * @return the scenario
     */
    public static LoadScenario startUpBurst(Duration bucketWindow) {
        return new LoadScenario(MODEL, 600, 60_000, 60_000, Duration.ofMillis(50), 64, 50, prompts(200, 45), List.of(),
                10, Duration.ofMillis(12_800), false, Duration.ofSeconds(120), bucketWindow, 128);
    }

    /**
     * The scenario of the report: RPM 600, ITPM 60,000 (binding: prompts average 200
     * input tokens, so the provider admits 5 calls a second), OTPM 60,000, 50 ms latency,
     * offered at twice the binding limit.
     * @param duration how long the load is offered
     * @return the scenario
     */
    public static LoadScenario twiceTheLimit(Duration duration) {
        // 60,000 ITPM / 60 s / 200 tokens = 5 calls a second; RPM allows 10, OTPM 15
        return new LoadScenario(MODEL, 600, 60_000, 60_000, Duration.ofMillis(50), 64, 50, prompts(200, 42), List.of(),
                10, duration, true, Duration.ofSeconds(120));
    }

    /**
     * The same provider, but prompt sizes that shift halfway through the run, as in a RAG
     * pipeline whose retrieved context grows (a larger top-k, longer documents): the
     * first half of the calls send 50 to 150 input tokens (100 on average), the second
     * half 500 to 700 (600 on average). Over the whole run prompts average 350 tokens, so
     * the provider admits 1,000 / 350 = 2.86 calls a second on average; the load is
     * offered at 6 calls a second (2.1 times that). In the first half that is 600 input
     * tokens a second, under the limit; in the second half 3,600, 3.6 times the limit.
     * @param duration how long the load is offered
     * @return the scenario
     */
    public static LoadScenario shiftingPrompts(Duration duration) {
        return new LoadScenario(MODEL, 600, 60_000, 60_000, Duration.ofMillis(50), 64, 50, prompts(200, 43, 50, 150),
                prompts(200, 44, 500, 700), 6, duration, true, Duration.ofSeconds(120));
    }

    /**
     * Prompts of 50 to 350 input tokens (200 on average, by the simulator's four
     * characters a token), in a fixed pseudo-random order, so that every contender sends
     * the same bodies and a limiter tuned to one request size does not fit exactly.
     * @param count how many distinct prompts
     * @param seed the order
     * @return the prompts
     */
    static List<String> prompts(int count, long seed) {
        return prompts(count, seed, 50, 350);
    }

    /**
     * Prompts of {@code minTokens} to {@code maxTokens} input tokens, uniformly
     * distributed, in a fixed pseudo-random order.
     * @param count how many distinct prompts
     * @param seed the order
     * @param minTokens the smallest prompt
     * @param maxTokens the largest prompt
     * @return the prompts
     */
    static List<String> prompts(int count, long seed, int minTokens, int maxTokens) {
        Random random = new Random(seed);
        List<String> prompts = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int tokens = minTokens + random.nextInt(maxTokens - minTokens + 1);
            prompts.add(MessagesBodies.prose(4 * tokens, i));
        }
        return prompts;
    }

    /**
     * Whether the prompt sizes change halfway through the run.
     * @return {@code true} for the shifting scenario
     */
    public boolean shifting() {
        return !this.laterPrompts.isEmpty();
    }

    /**
     * The average input tokens of the prompts of the first half of the calls, or of all
     * calls when the sizes do not shift.
     * @return tokens
     */
    public double earlierInputTokens() {
        return averageTokens(this.prompts);
    }

    /**
     * The average input tokens of the prompts of the second half of the calls, or of all
     * calls when the sizes do not shift.
     * @return tokens
     */
    public double laterInputTokens() {
        return shifting() ? averageTokens(this.laterPrompts) : averageTokens(this.prompts);
    }

    /**
     * The average input tokens of a call over the whole run (what someone tuning a
     * limiter from last week's logs would see).
     * @return tokens
     */
    public double averageInputTokens() {
        return (earlierInputTokens() + laterInputTokens()) / 2;
    }

    private static double averageTokens(List<String> prompts) {
        return prompts.stream().mapToInt((prompt) -> (prompt.length() + 3) / 4).average().orElse(1);
    }

    /**
     * The calls a second the provider admits in the steady state, whichever limit binds,
     * for the average prompt over the whole run.
     * @return calls per second
     */
    public double bindingCallsPerSecond() {
        double inputTokens = averageInputTokens();
        double byRequests = this.requestsPerMinute / 60.0;
        double byInput = this.inputTokensPerMinute / 60.0 / inputTokens;
        // the provider settles each call's output to what it produced
        double byOutput = this.outputTokensPerMinute / 60.0 / this.outputTokens;
        return Math.min(byRequests, Math.min(byInput, byOutput));
    }

    /**
     * The number of calls offered.
     * @return calls
     */
    public int calls() {
        return this.burst + (int) Math.round(this.callsPerSecond * this.duration.toNanos() / 1e9);
    }

    /**
     * The prompt of the {@code index}th call.
     * @param index the call
     * @return its prompt
     */
    public String prompt(int index) {
        if (shifting() && index >= calls() / 2) {
            return this.laterPrompts.get(index % this.laterPrompts.size());
        }
        return this.prompts.get(index % this.prompts.size());
    }

    /**
     * This scenario at another offered load.
     * @param callsPerSecond the load
     * @return the new scenario
     */
    public LoadScenario withCallsPerSecond(double callsPerSecond) {
        return new LoadScenario(this.model, this.requestsPerMinute, this.inputTokensPerMinute,
                this.outputTokensPerMinute, this.latency, this.maxTokens, this.outputTokens, this.prompts,
                this.laterPrompts, callsPerSecond, this.duration, this.drain, this.deadline, this.bucketWindow,
                this.burst);
    }

    /**
     * This scenario with or without draining the provider's buckets first.
     * @param drain whether to drain
     * @return the new scenario
     */
    public LoadScenario withDrain(boolean drain) {
        return new LoadScenario(this.model, this.requestsPerMinute, this.inputTokensPerMinute,
                this.outputTokensPerMinute, this.latency, this.maxTokens, this.outputTokens, this.prompts,
                this.laterPrompts, this.callsPerSecond, this.duration, drain, this.deadline, this.bucketWindow,
                this.burst);
    }

    /**
     * This scenario with the provider's buckets holding another part of each limit.
     * @param bucketWindow how much of each per-minute limit a bucket holds
     * @return the new scenario
     */
    public LoadScenario withBucketWindow(Duration bucketWindow) {
        return new LoadScenario(this.model, this.requestsPerMinute, this.inputTokensPerMinute,
                this.outputTokensPerMinute, this.latency, this.maxTokens, this.outputTokens, this.prompts,
                this.laterPrompts, this.callsPerSecond, this.duration, this.drain, this.deadline, bucketWindow,
                this.burst);
    }

    /**
     * This scenario against other provider limits.
     * @param requestsPerMinute the provider's RPM
     * @param inputTokensPerMinute the provider's ITPM
     * @param outputTokensPerMinute the provider's OTPM
     * @return the new scenario
     */
    public LoadScenario withLimits(long requestsPerMinute, long inputTokensPerMinute, long outputTokensPerMinute) {
        return new LoadScenario(this.model, requestsPerMinute, inputTokensPerMinute, outputTokensPerMinute,
                this.latency, this.maxTokens, this.outputTokens, this.prompts, this.laterPrompts, this.callsPerSecond,
                this.duration, this.drain, this.deadline, this.bucketWindow, this.burst);
    }

    /**
     * This scenario with another {@code max_tokens} and answer length.
     * @param maxTokens {@code max_tokens} of every call
     * @param outputTokens output tokens of every answer
     * @return the new scenario
     */
    public LoadScenario withOutput(int maxTokens, int outputTokens) {
        return new LoadScenario(this.model, this.requestsPerMinute, this.inputTokensPerMinute,
                this.outputTokensPerMinute, this.latency, maxTokens, outputTokens, this.prompts, this.laterPrompts,
                this.callsPerSecond, this.duration, this.drain, this.deadline, this.bucketWindow, this.burst);
    }

    /**
     * This scenario with the provider answering in another time.
     * @param latency the provider's time to answer one call
     * @return the new scenario
     */
    public LoadScenario withLatency(Duration latency) {
        return new LoadScenario(this.model, this.requestsPerMinute, this.inputTokensPerMinute,
                this.outputTokensPerMinute, latency, this.maxTokens, this.outputTokens, this.prompts, this.laterPrompts,
                this.callsPerSecond, this.duration, this.drain, this.deadline, this.bucketWindow, this.burst);
    }

}
