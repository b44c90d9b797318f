package io.github.llmthrottle.actuate;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.test.Fault;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static io.github.llmthrottle.actuate.ObservedApplication.API_KEY;
import static io.github.llmthrottle.actuate.ObservedApplication.OPUS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The configured API key appears in no actuator response and nowhere in the DEBUG log of
 * a full run: startup, successful calls, a retried 429, a rejected call, every endpoint
 * read, shutdown.
 */
@ExtendWith(OutputCaptureExtension.class)
class SecretsNeverExposedTests {

    @Test
    void apiKeyIsInNoActuatorResponseAndNotInTheDebugLog(CapturedOutput output) {
        Map<String, String> responses = new LinkedHashMap<>();
        List<String> exceptions = new ArrayList<>();
        try (ObservedApplication app = ObservedApplication.start("management.endpoints.web.exposure.include=*",
                "management.endpoints.web.exposure.exclude=heapdump,shutdown", "logging.level.root=DEBUG")) {
            app.call(OPUS);
            app.simulator().script(OPUS, Fault.status(429).retryAfter("1"), Fault.ok());
            app.call(OPUS);
            app.simulator().script(OPUS, Fault.status(429).retryAfter("30"));
            LlmThrottleException rejected = catchThrowableOfType(LlmThrottleException.class, () -> app.call(OPUS));
            exceptions.add(String.valueOf(rejected));
            exceptions.add(String.valueOf(rejected.getCause()));

            JsonNode links = app.json("").path("_links");
            assertThat(links.propertyNames()).contains("llmthrottle", "health", "prometheus", "env", "configprops");
            for (String name : links.propertyNames()) {
                JsonNode link = links.path(name);
                if (!link.path("templated").asBoolean()) {
                    String path = link.path("href").asString().replaceFirst("^.*/actuator", "");
                    responses.put(path, app.get(path).body());
                }
            }
            for (String path : List.of("/llmthrottle/anthropic/" + OPUS, "/health/llmThrottle",
                    "/env/llm.throttle.clients.anthropic.api-key", "/configprops/llm.throttle", "/metrics/llm.requests",
                    "/metrics/llm.calls", "/loggers/io.github.llmthrottle")) {
                HttpResponse<String> response = app.get(path);
                assertThat(response.statusCode()).as(path).isEqualTo(200);
                responses.put(path, response.body());
            }
            assertThat(responses.get("/env/llm.throttle.clients.anthropic.api-key")).contains("******");
            assertThat(responses.get("/llmthrottle")).contains(OPUS);
        }
        assertThat(responses).hasSizeGreaterThan(15);
        responses.forEach((path, body) -> assertThat(body).as(path).doesNotContain(API_KEY));
        assertThat(exceptions).allSatisfy((text) -> assertThat(text).doesNotContain(API_KEY));
        assertThat(output.getOut()).contains("DEBUG").contains("LlmThrottleEndpointAutoConfiguration");
        assertThat(output.getAll()).doesNotContain(API_KEY);
    }

}
