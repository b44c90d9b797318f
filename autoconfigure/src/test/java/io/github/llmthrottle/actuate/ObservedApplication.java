package io.github.llmthrottle.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.time.NoonTimeSource;
import io.github.llmthrottle.time.SleeplessTimeSource;
import io.github.llmthrottle.time.TimeSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

/**
 * A whole Spring Boot web application (embedded Tomcat on a random port, actuator,
 * Micrometer with Prometheus, llm-throttle) whose {@code anthropic} client talks to an
 * {@link LlmSimulator} on loopback. Retries do not sleep; admission waits for real; the
 * wall clock of both starts at noon of a fixed day ({@link NoonTimeSource}).
 */
public final class ObservedApplication implements AutoCloseable {

    /** The configured API key: it must never show up in any output. */
    public static final String API_KEY = "sk-ant-api03-observability-NEVER-SHOWN-7f3a9c";

    /** A configured model with every limit set and a fallback. */
    public static final String OPUS = "claude-opus-4-7";

    /** The fallback of {@link #OPUS}. */
    public static final String SONNET = "claude-sonnet-4-5";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final LlmSimulator simulator;

    private final ConfigurableApplicationContext context;

    private final HttpClient http = HttpClient.newHttpClient();

    private final String actuator;

    private ObservedApplication(LlmSimulator simulator, ConfigurableApplicationContext context) {
        this.simulator = simulator;
        this.context = context;
        this.actuator = "http://localhost:" + context.getEnvironment().getProperty("local.server.port") + "/actuator";
    }

    /**
     * Starts a simulator and the application.
     * @param properties more properties ({@code name=value}), overriding the defaults
     * @return the running application
     */
    public static ObservedApplication start(String... properties) {
        // the application's and the simulator's wall clock: at noon of a fixed day, so
        // that no quota's day or month ends during a test
        NoonTimeSource time = new NoonTimeSource();
        LlmSimulator simulator = LlmSimulator.builder()
            .clock(time.clock())
            .apiKeys(API_KEY)
            .noLatency()
            .roundRemainingTokens(false)
            .model(OPUS, ModelLimits.of(1000, 1_000_000, 200_000))
            .model(SONNET, ModelLimits.of(2000, 2_000_000, 400_000))
            .start();
        List<String> args = new ArrayList<>(List.of("server.port=0", "spring.main.banner-mode=off",
                "management.endpoint.health.show-details=always", "management.health.redis.enabled=false",
                "management.endpoints.web.exposure.include=llmthrottle,health,prometheus",
                "llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.base-url=" + simulator.baseUrl(),
                "llm.throttle.clients.anthropic.api-key=" + API_KEY,
                "llm.throttle.clients.anthropic.default-model=" + OPUS,
                "llm.throttle.clients.anthropic.models." + OPUS + ".requests-per-minute=100",
                "llm.throttle.clients.anthropic.models." + OPUS + ".input-tokens-per-minute=100000",
                "llm.throttle.clients.anthropic.models." + OPUS + ".output-tokens-per-minute=20000",
                "llm.throttle.clients.anthropic.models." + OPUS + ".max-concurrency=8",
                "llm.throttle.clients.anthropic.models." + OPUS + ".context-window=200000",
                "llm.throttle.clients.anthropic.models." + OPUS + ".fallback=" + SONNET,
                "llm.throttle.clients.anthropic.models." + SONNET + ".requests-per-minute=1000",
                "llm.throttle.retry.jitter=none", "llm.throttle.queue.max-wait=1s"));
        args.addAll(List.of(properties));
        try {
            TimeSource noSleep = new SleeplessTimeSource((duration) -> {
            }, time::instant);
            ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .initializers((initializing) -> initializing.getBeanFactory().registerSingleton("noSleep", noSleep))
                .web(WebApplicationType.SERVLET)
                .run(args.stream().map((arg) -> "--" + arg).toArray(String[]::new));
            return new ObservedApplication(simulator, context);
        }
        catch (RuntimeException ex) {
            simulator.close();
            throw ex;
        }
    }

    public LlmSimulator simulator() {
        return this.simulator;
    }

    public ConfigurableApplicationContext context() {
        return this.context;
    }

    /**
     * Sends one Messages request for {@code model} through the
     * {@code anthropicRestClient} bean.
     * @param model the model
     * @return the response body
     */
    public String call(String model) {
        RestClient client = this.context.getBean("anthropicRestClient", RestClient.class);
        return client.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body("{\"model\":\"" + model
                    + "\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"Hello there\"}]}")
            .retrieve()
            .body(String.class);
    }

    /**
     * GETs an actuator path.
     * @param path the path below {@code /actuator}, such as {@code /llmthrottle}
     * @return the response
     */
    public HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create(this.actuator + path)).GET());
    }

    /**
     * POSTs JSON to an actuator path.
     * @param path the path below {@code /actuator}
     * @param json the body
     * @return the response
     */
    public HttpResponse<String> post(String path, String json) {
        return send(HttpRequest.newBuilder(URI.create(this.actuator + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /**
     * GETs an actuator path and parses the JSON it returns.
     * @param path the path below {@code /actuator}
     * @return the JSON
     */
    public JsonNode json(String path) {
        return parse(get(path).body());
    }

    /**
     * Parses JSON.
     * @param json the text
     * @return the tree
     */
    public static JsonNode parse(String json) {
        return JSON.readTree(json);
    }

    private HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return this.http.send(request.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    @Override
    public void close() {
        try {
            this.context.close();
        }
        finally {
            this.simulator.close();
        }
    }

    @Configuration(proxyBeanMethods = false)
    // Spring AI's models are on the test classpath (for the Spring AI tests) and would
    // need API keys: this application is about the actuator, not them
    @EnableAutoConfiguration(
            excludeName = { "org.springframework.ai.model.anthropic.autoconfigure.AnthropicChatAutoConfiguration",
                    "org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration",
                    "org.springframework.ai.model.openai.autoconfigure.OpenAiEmbeddingAutoConfiguration",
                    "org.springframework.ai.model.openai.autoconfigure.OpenAiImageAutoConfiguration",
                    "org.springframework.ai.model.openai.autoconfigure.OpenAiAudioSpeechAutoConfiguration",
                    "org.springframework.ai.model.openai.autoconfigure.OpenAiAudioTranscriptionAutoConfiguration",
                    "org.springframework.ai.model.openai.autoconfigure.OpenAiModerationAutoConfiguration" })
    static class App {

    }

}
