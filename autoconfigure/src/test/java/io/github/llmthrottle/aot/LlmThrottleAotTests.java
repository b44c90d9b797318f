package io.github.llmthrottle.aot;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.Throttled;
import io.github.llmthrottle.actuate.LlmThrottleEndpoint.ModelStateDescriptor;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.autoconfigure.LlmThrottleEndpointAutoConfiguration;
import io.github.llmthrottle.test.LlmSimulator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.aot.generate.GeneratedFiles.Kind;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.http.MediaType;
import org.springframework.javapoet.ClassName;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application with a configured client and a {@code @Throttled} bean, processed ahead
 * of time as {@code spring-boot:process-aot} does, then started from the generated code
 * alone, as a native image or {@code -Dspring.aot.enabled=true} starts it: the client's
 * {@code RestClient} is throttled, the annotated method routes to its fallback method,
 * and the hints a native image needs are registered.
 */
@CompileWithForkedClassLoader
class LlmThrottleAotTests {

    private static final String OPUS = "claude-opus-4-7";

    private LlmSimulator simulator;

    @BeforeEach
    void start() {
        this.simulator = LlmSimulator.builder().noLatency().start();
    }

    @AfterEach
    void stop() {
        this.simulator.close();
    }

    @Test
    void contextProcessedAheadOfTimeStartsWithThrottledClientAndFallbackMethod() {
        TestGenerationContext generationContext = new TestGenerationContext();
        ClassName initializerName = new ApplicationContextAotGenerator().processAheadOfTime(context(),
                generationContext);
        generationContext.writeGeneratedContent();
        TestCompiler.forSystem().with(generationContext).compile((compiled) -> {
            try (GenericApplicationContext aot = new GenericApplicationContext()) {
                properties().applyTo(aot);
                ApplicationContextInitializer<GenericApplicationContext> initializer = compiled
                    .getInstance(ApplicationContextInitializer.class, initializerName.toString());
                initializer.initialize(aot);
                aot.refresh();
                RestClient client = aot.getBean("anthropicRestClient", RestClient.class);
                String body = client.post()
                    .uri("/v1/messages")
                    .contentType(MediaType.APPLICATION_JSON)
                    .body(Map.of("model", OPUS, "max_tokens", 10, "messages",
                            List.of(Map.of("role", "user", "content", "Hello"))))
                    .retrieve()
                    .body(String.class);
                assertThat(body).contains("\"model\":\"" + OPUS + "\"");
                assertThat(this.simulator.stats(OPUS).successes()).isEqualTo(1);
                Answers answers = aot.getBean(Answers.class);
                assertThat(AopUtils.isCglibProxy(answers)).isTrue();
                this.simulator.resetStats().outage(OPUS, Duration.ofMinutes(10));
                assertThat(answers.answer(new Question("acme", "Hello"))).isEqualTo("cached for acme");
                assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(3);
            }
        });
    }

    @Test
    void hintsCoverTheThrottledMethodItsFallbackTheTenantTypeTheBuilderProxyAndTheEndpoint() throws Exception {
        TestGenerationContext generationContext = new TestGenerationContext();
        new ApplicationContextAotGenerator().processAheadOfTime(context(), generationContext);
        RuntimeHints hints = generationContext.getRuntimeHints();
        assertThat(RuntimeHintsPredicates.reflection()
            .onMethodInvocation(Answers.class.getDeclaredMethod("answer", Question.class))).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
            .onMethodInvocation(Answers.class.getDeclaredMethod("cached", Question.class, Throwable.class)))
            .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Question.class, "tenant")).accepts(hints);
        assertThat(RuntimeHintsPredicates.proxies()
            .forInterfaces(AopProxyUtils.completeJdkProxyInterfaces(RestClient.Builder.class))).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(ModelStateDescriptor.class)).accepts(hints);
        // the class-based proxy of the @Throttled bean is generated now, for the image
        assertThat(generationContext.getGeneratedFiles().getGeneratedFiles(Kind.CLASS).keySet())
            .anySatisfy((name) -> assertThat(name).contains(Answers.class.getSimpleName() + "$$SpringCGLIB$$"));
    }

    private GenericApplicationContext context() {
        GenericApplicationContext context = new GenericApplicationContext();
        AnnotationConfigUtils.registerAnnotationConfigProcessors(context);
        properties().applyTo(context);
        context.registerBean(AnswersConfiguration.class);
        return context;
    }

    private TestPropertyValues properties() {
        return TestPropertyValues.of("llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.base-url=" + this.simulator.baseUrl(),
                "llm.throttle.clients.anthropic.api-key=test-key",
                "llm.throttle.clients.anthropic.default-model=" + OPUS, "llm.throttle.retry.max-retries=2",
                "llm.throttle.retry.delay=1ms", "llm.throttle.retry.max-delay=5ms", "llm.throttle.retry.jitter=none",
                "management.endpoints.web.exposure.include=llmthrottle");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
            LlmThrottleAutoConfiguration.class, EndpointAutoConfiguration.class,
            LlmThrottleEndpointAutoConfiguration.class })
    static class AnswersConfiguration {

        @Bean
        Answers answers(@Qualifier("anthropicRestClient") RestClient anthropic) {
            return new Answers(anthropic);
        }

    }

    /**
     * A question of a tenant.
     *
     * @param tenant the tenant
     * @param text the question
     */
    record Question(String tenant, String text) {
    }

    static class Answers {

        private final RestClient anthropic;

        Answers(RestClient anthropic) {
            this.anthropic = anthropic;
        }

        @Throttled(model = OPUS, tenant = "#question.tenant", fallbackMethod = "cached")
        public String answer(Question question) {
            return this.anthropic.post()
                .uri("/v1/messages")
                .contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("model", OPUS, "max_tokens", 10, "messages",
                        List.of(Map.of("role", "user", "content", question.text()))))
                .retrieve()
                .body(String.class);
        }

        public String cached(Question question, Throwable cause) {
            return "cached for " + question.tenant();
        }

    }

}
