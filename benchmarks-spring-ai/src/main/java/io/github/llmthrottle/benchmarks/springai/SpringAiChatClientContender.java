package io.github.llmthrottle.benchmarks.springai;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.benchmarks.ThrottleApplication;
import io.github.llmthrottle.benchmarks.load.Contender;
import io.github.llmthrottle.benchmarks.load.LoadScenario;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

/**
 * Spring AI 2.0's Anthropic {@code ChatClient} as an application gets it: a non-web
 * context with every auto-configuration on the classpath ({@link SpringAiApplication}),
 * Spring AI's Anthropic model pointed at the simulator with the scenario's model and
 * {@code max_tokens}, every other Spring AI setting default (the SDK's 2 retries, the 60
 * s timeout). Each call is {@code chatClient.prompt(prompt).call().content()} on the
 * caller's thread.
 * <p>
 * Throttled, the context also runs llm-throttle's auto-configuration with the client
 * configuration of the {@code RestClient} contender (one Anthropic client at the
 * simulator's base URL, the provider's three limits configured for the model, every other
 * setting default): Spring AI's requests then go through llm-throttle's OkHttp
 * interceptor, and llm-throttle's retries replace the SDK's.
 */
final class SpringAiChatClientContender implements Contender {

    private final ConfigurableApplicationContext context;

    private final ChatClient chatClient;

    private final boolean throttled;

    SpringAiChatClientContender(String baseUrl, LoadScenario scenario, boolean throttled) {
        this.throttled = throttled;
        List<String> properties = new ArrayList<>(List.of("spring.ai.anthropic.api-key=benchmark",
                "spring.ai.anthropic.base-url=" + baseUrl, "spring.ai.anthropic.chat.model=" + scenario.model(),
                "spring.ai.anthropic.chat.max-tokens=" + scenario.maxTokens()));
        if (throttled) {
            properties.addAll(List.of(ThrottleApplication.properties(baseUrl, scenario.model(),
                    Map.of("requests-per-minute", scenario.requestsPerMinute(), "input-tokens-per-minute",
                            scenario.inputTokensPerMinute(), "output-tokens-per-minute",
                            scenario.outputTokensPerMinute()))));
        }
        else {
            properties.addAll(List.of("spring.main.banner-mode=off", "spring.main.log-startup-info=false",
                    "logging.level.root=warn"));
        }
        Class<?> application = throttled ? SpringAiApplication.WithLlmThrottle.class
                : SpringAiApplication.WithoutLlmThrottle.class;
        this.context = new SpringApplicationBuilder(application).web(WebApplicationType.NONE)
            .properties(properties.toArray(String[]::new))
            .run();
        this.chatClient = this.context.getBean(ChatClient.Builder.class).build();
    }

    @Override
    public void call(String prompt) {
        this.chatClient.prompt(prompt).call().content();
    }

    /**
     * Throttled, sends the drain through the {@code RestClient} of the same llm-throttle
     * client, so that its buckets (shared with the {@code ChatClient}'s requests, which
     * go to the same client and model) are drained with the provider's.
     */
    @Override
    public boolean drain(String body) {
        if (!this.throttled) {
            return false;
        }
        this.context.getBean("anthropicRestClient", RestClient.class)
            .post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body(body)
            .retrieve()
            .toBodilessEntity();
        return true;
    }

    @Override
    public void close() {
        this.context.close();
    }

}
