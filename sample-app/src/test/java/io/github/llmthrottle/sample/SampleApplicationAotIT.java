package io.github.llmthrottle.sample;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.llmthrottle.sample.AssistantService.Question;
import io.github.llmthrottle.test.LlmSimulator;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.aop.support.AopUtils;
import org.springframework.aot.AotDetector;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.ClassPathResource;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample application as {@code spring-boot:process-aot} left it in
 * {@code target/classes}, started from the generated code with
 * {@code -Dspring.aot.enabled=true} (the Failsafe execution {@code aot} sets it), as a
 * native image starts: a throttled call and a {@code @Throttled} fallback work, and the
 * hints written for the native image cover the annotated method, its fallback method and
 * the proxy of Boot's {@code RestClient.Builder}.
 */
class SampleApplicationAotIT {

    private static final String METADATA = "META-INF/native-image/io.github.llmthrottle/llm-throttle-sample-app/"
            + "reachability-metadata.json";

    @Test
    void startsFromTheGeneratedCodeWithAThrottledCallAndAFallback() {
        assertThat(AotDetector.useGeneratedArtifacts())
            .as("run by the Failsafe execution aot, which sets -Dspring.aot.enabled=true")
            .isTrue();
        SpringApplication application = new SpringApplication(SampleApplication.class);
        // the generated initializer is named after the main class, which Boot otherwise
        // deduces from the stack: here, the test runner's
        application.setMainApplicationClass(SampleApplication.class);
        try (ConfigurableApplicationContext context = application.run("--server.port=0", "--demo.enabled=false",
                "--spring.main.banner-mode=off", "--llm.throttle.retry.max-retries=0")) {
            AssistantService service = context.getBean(AssistantService.class);
            assertThat(AopUtils.isCglibProxy(service)).isTrue();
            assertThat(context.getBean("anthropicRestClient", RestClient.class)).isNotNull();

            Answer classified = service.classify("a parcel that never came");
            assertThat(classified.model()).isEqualTo(SimulatedProvider.GPT);
            assertThat(classified.outputTokens()).isPositive();
            LlmSimulator openAi = context.getBean("openAiSimulator", LlmSimulator.class);
            assertThat(openAi.stats(SimulatedProvider.GPT).successes()).isEqualTo(1);

            LlmSimulator anthropic = context.getBean("llmSimulator", LlmSimulator.class);
            anthropic.outage(SimulatedProvider.OPUS, Duration.ofMinutes(10))
                .outage(SimulatedProvider.SONNET, Duration.ofMinutes(10));
            context.getBean("sonnetEuSimulator", LlmSimulator.class)
                .outage(SimulatedProvider.SONNET, Duration.ofMinutes(10));
            openAi.outage(SimulatedProvider.GPT, Duration.ofMinutes(10));
            Answer answer = service.answer(new Question("Where is my parcel?"));
            assertThat(answer.model()).isEqualTo("cache");
            assertThat(answer.text()).startsWith("(cached)");
            assertThat(anthropic.stats(SimulatedProvider.OPUS).attempts()).isPositive();
        }
    }

    @Test
    void nativeImageHintsCoverThrottledMethodsTheirFallbackAndTheBuilderProxy() throws IOException {
        JsonNode metadata;
        try (InputStream in = new ClassPathResource(METADATA).getInputStream()) {
            metadata = JsonMapper.builder().build().readTree(in);
        }
        JsonNode service = entry(metadata.path("reflection"), AssistantService.class.getName());
        List<String> methods = new ArrayList<>();
        service.path("methods").forEach((method) -> methods.add(method.path("name").asString()));
        assertThat(methods).contains("answer", "cachedAnswer", "summarize", "analyze", "classify");
        List<String> proxies = new ArrayList<>();
        metadata.path("reflection").forEach((type) -> {
            JsonNode proxy = type.path("type").path("proxy");
            if (proxy.isArray()) {
                proxies.add(proxy.toString());
            }
        });
        assertThat(proxies).anySatisfy((proxy) -> assertThat(proxy)
            .contains("org.springframework.web.client.RestClient$Builder", "org.springframework.aop.SpringProxy"));
        assertThat(entry(metadata.path("reflection"), AssistantService.Document.class.getName()).path("methods")
            .toString()).contains("\"tenant\"");
    }

    private static JsonNode entry(JsonNode types, String name) {
        for (JsonNode type : types) {
            if (type.path("type").asString("").equals(name)) {
                return type;
            }
        }
        throw new AssertionError("No reflection entry for " + name + " in " + METADATA);
    }

}
