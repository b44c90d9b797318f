package io.github.llmthrottle.benchmarks.load;

import java.util.List;
import java.util.Locale;

/**
 * A named contender of the load comparison and how to create it for one run.
 *
 * @param name short name, as in the report's table
 * @param factory creates the contender against a simulator's base URL
 */
public record ContenderSpec(String name, Factory factory) {

    /**
     * Every contender of the comparison, in the report's order.
     * @param scenario the scenario (the tuned rate limiter takes its rate from it: the
     * calls a second the binding limit admits for the average prompt of the whole run,
     * rounded to two decimals, or to a whole number when within 0.05 of one)
     * @return the contenders
     */
    public static List<ContenderSpec> all(LoadScenario scenario) {
        double binding = scenario.bindingCallsPerSecond();
        double tuned = (Math.abs(binding - Math.rint(binding)) < 0.05) ? Math.max(1, Math.rint(binding))
                : Math.round(binding * 100) / 100.0;
        double perRpm = Math.max(1, scenario.requestsPerMinute() / 60);
        return List.of(
                new ContenderSpec("llm-throttle (limits configured)",
                        (url, s) -> new LlmThrottleContender(url, s, true)),
                new ContenderSpec("llm-throttle (no limits configured, headers only)",
                        (url, s) -> new LlmThrottleContender(url, s, false)),
                new ContenderSpec("hand-rolled loop (429 → sleep 1 s, 5 tries)", HandRolledRetryContender::new),
                new ContenderSpec("Resilience4j Retry (5 attempts, exp. back-off + jitter)",
                        (url, s) -> new Resilience4jContender(url, s, null)),
                new ContenderSpec("Resilience4j Retry + RateLimiter " + rate(perRpm) + "/s (= RPM)",
                        (url, s) -> new Resilience4jContender(url, s, perRpm)),
                new ContenderSpec("Resilience4j Retry + RateLimiter " + rate(tuned) + "/s (hand-tuned to tokens)",
                        (url, s) -> new Resilience4jContender(url, s, tuned)),
                new ContenderSpec("anthropic-java SDK (maxRetries 2, default)",
                        (url, s) -> new AnthropicSdkContender(url, s, 2)),
                new ContenderSpec("anthropic-java SDK (maxRetries 5)",
                        (url, s) -> new AnthropicSdkContender(url, s, 5)));
    }

    private static String rate(double callsPerSecond) {
        return (callsPerSecond == Math.rint(callsPerSecond)) ? Long.toString((long) callsPerSecond)
                : String.format(Locale.ROOT, "%.2f", callsPerSecond);
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
