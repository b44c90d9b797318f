package io.github.llmthrottle.benchmarks.load;

import java.util.List;

/**
 * A named contender of the load comparison and how to create it for one run.
 *
 * @param name short name, as in the report's table
 * @param factory creates the contender against a simulator's base URL
 */
public record ContenderSpec(String name, Factory factory) {

    /**
     * Every contender of the comparison, in the report's order.
     * @param scenario the scenario (the tuned rate limiter takes its rate from it)
     * @return the contenders
     */
    public static List<ContenderSpec> all(LoadScenario scenario) {
        int tuned = (int) Math.max(1, Math.round(scenario.bindingCallsPerSecond()));
        int perRpm = (int) Math.max(1, scenario.requestsPerMinute() / 60);
        return List.of(
                new ContenderSpec("llm-throttle (limits configured)",
                        (url, s) -> new LlmThrottleContender(url, s, true)),
                new ContenderSpec("llm-throttle (no limits configured, headers only)",
                        (url, s) -> new LlmThrottleContender(url, s, false)),
                new ContenderSpec("hand-rolled loop (429 → sleep 1 s, 5 tries)",
                        HandRolledRetryContender::new),
                new ContenderSpec("Resilience4j Retry (5 attempts, exp. back-off + jitter)",
                        (url, s) -> new Resilience4jContender(url, s, null)),
                new ContenderSpec("Resilience4j Retry + RateLimiter " + perRpm + "/s (= RPM)",
                        (url, s) -> new Resilience4jContender(url, s, perRpm)),
                new ContenderSpec("Resilience4j Retry + RateLimiter " + tuned + "/s (hand-tuned to tokens)",
                        (url, s) -> new Resilience4jContender(url, s, tuned)),
                new ContenderSpec("anthropic-java SDK (maxRetries 2, default)",
                        (url, s) -> new AnthropicSdkContender(url, s, 2)),
                new ContenderSpec("anthropic-java SDK (maxRetries 5)",
                        (url, s) -> new AnthropicSdkContender(url, s, 5)));
    }

    /** Creates a contender for one run. */
    @FunctionalInterface
    public interface Factory {

        /**
         * Creates the contender.
         * @param baseUrl the simulator's base URL
         * @param scenario the scenario
         * @return the contender
         */
        Contender create(String baseUrl, LoadScenario scenario);

    }

}
