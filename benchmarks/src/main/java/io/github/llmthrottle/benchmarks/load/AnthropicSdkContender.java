package io.github.llmthrottle.benchmarks.load;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.models.messages.MessageCreateParams;

/**
 * The official {@code anthropic-java} SDK (OkHttp) pointed at the simulator, with its own
 * retries: 408/409/429/5xx retried up to {@code maxRetries} times, sleeping what
 * {@code retry-after} says or else 0.5 s doubling to 8 s with jitter, as the SDK does. No
 * rate limit.
 */
final class AnthropicSdkContender implements Contender {

    private final AnthropicClient client;

    private final LoadScenario scenario;

    AnthropicSdkContender(String baseUrl, LoadScenario scenario, int maxRetries) {
        this.client = AnthropicOkHttpClient.builder()
            .baseUrl(baseUrl)
            .apiKey("benchmark")
            .maxRetries(maxRetries)
            .build();
        this.scenario = scenario;
    }

    @Override
    public void call(String prompt) {
        this.client.messages()
            .create(MessageCreateParams.builder()
                .model(this.scenario.model())
                .maxTokens(this.scenario.maxTokens())
                .addUserMessage(prompt)
                .build());
    }

    @Override
    public void close() {
        this.client.close();
    }

}
