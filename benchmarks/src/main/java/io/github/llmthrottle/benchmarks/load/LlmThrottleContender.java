package io.github.llmthrottle.benchmarks.load;

import java.util.Map;

import io.github.llmthrottle.benchmarks.MessagesBodies;
import io.github.llmthrottle.benchmarks.ThrottleApplication;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.client.RestClient;

/**
 * llm-throttle as an application gets it: the {@code anthropicRestClient} bean of the
 * auto-configuration with default retry and queue settings, and either the provider's
 * published limits configured for the model or none (then it knows only what the response
 * headers say).
 */
final class LlmThrottleContender implements Contender {

    private final ConfigurableApplicationContext context;

    private final RestClient client;

    private final LoadScenario scenario;

    private final RateLimitLog rateLimits = new RateLimitLog();

    LlmThrottleContender(String baseUrl, LoadScenario scenario, boolean configureLimits) {
        this.scenario = scenario;
        Map<String, Object> limits = configureLimits
                ? Map.of("requests-per-minute", scenario.requestsPerMinute(), "input-tokens-per-minute",
                        scenario.inputTokensPerMinute(), "output-tokens-per-minute", scenario.outputTokensPerMinute())
                : Map.of();
        this.context = ThrottleApplication.start(baseUrl, scenario.model(), limits);
        // below llm-throttle's interceptor: it sees every attempt
        this.client = this.context.getBean("anthropicRestClient", RestClient.class)
            .mutate()
            .requestInterceptor(this.rateLimits)
            .build();
    }

    @Override
    public void call(String prompt) {
        PlainRestClients.post(this.client,
                MessagesBodies.singleTurn(this.scenario.model(), this.scenario.maxTokens(), prompt));
    }

    @Override
    public boolean drain(String body) {
        PlainRestClients.post(this.client, body);
        return true;
    }

    @Override
    public String rateLimitedBy(long startNanos) {
        return this.rateLimits.describe(startNanos);
    }

    @Override
    public void close() {
        this.context.close();
    }

}
