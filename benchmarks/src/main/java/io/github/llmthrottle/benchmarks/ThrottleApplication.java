package io.github.llmthrottle.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * Starts llm-throttle the way an application gets it: Boot's HTTP client and RestClient
 * auto-configuration, then {@link LlmThrottleAutoConfiguration}, bound from
 * {@code llm.throttle.*} properties. Nothing else (no web server, no component scan).
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
        LlmThrottleAutoConfiguration.class })
public class ThrottleApplication {

    /**
     * Starts a context with one Anthropic client named {@code anthropic}.
     * @param baseUrl the provider's base URL
     * @param model the model whose limits are configured
     * @param limits {@code requests-per-minute}, {@code input-tokens-per-minute}, ... of
     * the model, by property name
     * @param extra further properties
     * @return the running context; close it when done
     */
    public static ConfigurableApplicationContext start(String baseUrl, String model, Map<String, Object> limits,
            String... extra) {
        return new SpringApplicationBuilder(ThrottleApplication.class).web(WebApplicationType.NONE)
            .properties(properties(baseUrl, model, limits, extra))
            .run();
    }

    /**
     * The properties of {@link #start}: quiet start-up, one Anthropic client named
     * {@code anthropic} and its model's limits, then {@code extra}. Contenders that start
     * another application (Spring AI's) configure llm-throttle with them too.
     * @param baseUrl the provider's base URL
     * @param model the model whose limits are configured
     * @param limits {@code requests-per-minute}, {@code input-tokens-per-minute}, ... of
     * the model, by property name
     * @param extra further properties
     * @return the properties, as {@code name=value}
     */
    public static String[] properties(String baseUrl, String model, Map<String, Object> limits, String... extra) {
        String client = "llm.throttle.clients.anthropic.";
        List<String> properties = new ArrayList<>(
                List.of("spring.main.banner-mode=off", "spring.main.log-startup-info=false", "logging.level.root=warn",
                        client + "provider=anthropic", client + "base-url=" + baseUrl, client + "api-key=benchmark"));
        limits.forEach((name, value) -> properties.add(client + "models." + model + "." + name + "=" + value));
        properties.addAll(List.of(extra));
        return properties.toArray(String[]::new);
    }

}
