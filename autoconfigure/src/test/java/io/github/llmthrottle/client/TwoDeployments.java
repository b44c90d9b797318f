package io.github.llmthrottle.client;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.ModelLimits;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A model served by two deployments, each a simulated provider of its own that accepts
 * only its own API key: {@code east} (the client's base URL, 2 requests a minute, key
 * {@code east-key}) and {@code west} (another base URL, key {@code west-key}). Retries
 * are quick and few, so the hooks' deployment tests fail over without waiting. Close it
 * after each test.
 */
public final class TwoDeployments implements AutoCloseable {

    /** The provider of the client's base URL. */
    public final LlmSimulator east;

    /** The other provider. */
    public final LlmSimulator west;

    private final String client;

    private final String model;

    private final boolean openAi;

    private TwoDeployments(String client, String model, boolean openAi) {
        this.client = client;
        this.model = model;
        this.openAi = openAi;
        this.east = LlmSimulator.builder().noLatency().outputTokens(40).apiKeys("east-key").start();
        this.west = LlmSimulator.builder()
            .noLatency()
            .outputTokens(40)
            .apiKeys("west-key")
            .model(model, ModelLimits.of(1000, 1_000_000, 100_000))
            .start();
    }

    /**
     * Two deployments of a model of the Anthropic client {@code anthropic}.
     * @param model the model
     * @return the running simulators
     */
    public static TwoDeployments anthropic(String model) {
        return new TwoDeployments("anthropic", model, false);
    }

    /**
     * Two deployments of a model of the OpenAI client {@code openai}.
     * @param model the model
     * @return the running simulators
     */
    public static TwoDeployments openAi(String model) {
        return new TwoDeployments("openai", model, true);
    }

    /**
     * The base URL of a simulator in the client's dialect.
     * @param simulator {@link #east} or {@link #west}
     * @return the base URL
     */
    public String baseUrl(LlmSimulator simulator) {
        return this.openAi ? simulator.openAiBaseUrl() : simulator.baseUrl();
    }

    /**
     * A runner with llm-throttle and the client configured with both deployments, to
     * which the caller adds its adapter's auto-configuration.
     * @param extra further properties
     * @return the runner
     */
    public ApplicationContextRunner runner(String... extra) {
        String prefix = "llm.throttle.clients." + this.client + ".";
        String deployments = prefix + "models." + this.model + ".deployments.";
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    RestClientAutoConfiguration.class, LlmThrottleAutoConfiguration.class))
            .withPropertyValues(prefix + "provider=" + this.client, prefix + "base-url=" + baseUrl(this.east),
                    prefix + "models." + this.model + ".requests-per-minute=100", deployments + "east.api-key=east-key",
                    deployments + "east.requests-per-minute=2", deployments + "west.base-url=" + baseUrl(this.west),
                    deployments + "west.api-key=west-key", "llm.throttle.queue.max-wait=1s",
                    "llm.throttle.retry.max-retries=1", "llm.throttle.retry.delay=1ms",
                    "llm.throttle.retry.max-delay=5ms", "llm.throttle.retry.jitter=none")
            .withPropertyValues(extra);
    }

    @Override
    public void close() {
        this.east.close();
        this.west.close();
    }

}
