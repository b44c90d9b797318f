package io.github.llmthrottle.annotation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.SubmissionPublisher;
import java.util.stream.Stream;

import io.github.llmthrottle.InvalidThrottleConfigurationException;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.Throttled;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import kotlin.coroutines.Continuation;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.ParallelFlux;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.Environment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Every misuse of {@code @Throttled} stops the application at startup with a message that
 * names the annotated method.
 */
class ThrottledStartupFailureTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                LlmThrottleAutoConfiguration.class))
        .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.default-model=claude-opus-4-7",
                "llm.throttle.clients.anthropic.models.claude-opus-4-7.requests-per-minute=50",
                "llm.throttle.clients.anthropic.models.claude-sonnet-4-5.requests-per-minute=1000");

    static Stream<Arguments> misuses() {
        return Stream.of(arguments(UnknownClient.class, "answer(String)", "client 'nope' is not configured"),
                arguments(UnknownModel.class, "answer(String)",
                        "model 'gpt-9' is not configured for client 'anthropic'"),
                arguments(UnknownFallbackModel.class, "answer(String)",
                        "fallback model 'claude-haiku-3' is not configured"),
                arguments(MissingFallbackMethod.class, "answer(String)", "fallbackMethod 'cached' does not exist"),
                arguments(FallbackMethodWithWrongParameters.class, "answer(String)",
                        "fallbackMethod must take the method's parameters, optionally followed by a Throwable, but found cached(Integer)"),
                arguments(FallbackMethodWithWrongReturnType.class, "answer(String)",
                        "returns java.lang.Integer but the method returns java.lang.String"),
                arguments(UnparsableMaxWait.class, "answer(String)", "maxWait 'soon' is not a duration"),
                arguments(UnparsableTenant.class, "answer(String)", "tenant '#text.' is not a valid SpEL expression"),
                arguments(FinalMethod.class, "answer(String)", "final method"),
                arguments(PrivateMethod.class, "answer(String)", "private method"),
                arguments(StaticMethod.class, "answer(String)", "static method"),
                arguments(FinalClass.class, "answer(String)", "final class"),
                arguments(FutureReturn.class, "answer(String)",
                        "cannot route a method that returns java.util.concurrent.Future"),
                arguments(FutureSubclassReturn.class, "answer(String)",
                        "returns " + AnswerFuture.class.getName() + ": only CompletableFuture and CompletionStage"),
                arguments(UnregisteredPublisherReturn.class, "answer(String)",
                        "returns reactor.core.publisher.ParallelFlux, a subtype of org.reactivestreams.Publisher"),
                arguments(PublisherSubtypeReturn.class, "answer(String)",
                        "returns java.util.concurrent.SubmissionPublisher"),
                arguments(SuspendFunction.class, "answer(String, Continuation)", "is a Kotlin suspend function"),
                arguments(MonoWithBlockingFallback.class, "answer(String)",
                        "fallbackMethod cached(String) returns java.lang.String but the method returns "
                                + "reactor.core.publisher.Mono<java.lang.String>"),
                arguments(MonoWithFutureFallback.class, "answer(String)",
                        "returns java.util.concurrent.CompletableFuture<java.lang.String> but the method returns "
                                + "reactor.core.publisher.Mono<java.lang.String>"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("misuses")
    void aMisuseStopsTheApplicationNamingTheMethod(Class<?> beanClass, String method, String reason) {
        this.runner.withBean(beanClass).run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidThrottleConfigurationException.class)
                .hasMessageStartingWith(beanClass.getName() + "." + method + ": ")
                .hasMessageContaining(reason);
        });
    }

    @Test
    void withSeveralClientsTheAnnotationMustNameOne() {
        this.runner.withPropertyValues("llm.throttle.clients.openai.provider=openai")
            .withBean(NoClient.class)
            .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                .hasMessageContaining(NoClient.class.getName() + ".answer(String)")
                .hasMessageContaining("names no client, and 2 are configured")
                .hasMessageContaining("Set client to one of [anthropic, openai]"));
    }

    @Test
    void aFallbackToAnUnknownModelOfAnotherClientNamesTheMethod() {
        this.runner
            .withPropertyValues("llm.throttle.clients.openai.provider=openai",
                    "llm.throttle.clients.openai.models.gpt-4o-mini.requests-per-minute=500")
            .withBean(UnknownCrossClientFallback.class)
            .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidThrottleConfigurationException.class)
                .hasMessageStartingWith(UnknownCrossClientFallback.class.getName() + ".answer(String): ")
                .hasMessageContaining(
                        "fallback model 'openai:gpt-9' names model 'gpt-9' of client 'openai', which is not configured")
                .hasMessageContaining("[gpt-4o-mini]"));
    }

    @Test
    void aFallbackToAnUnknownClientNamesTheMethod() {
        this.runner.withBean(UnknownClientFallback.class)
            .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                .hasMessageStartingWith(UnknownClientFallback.class.getName() + ".answer(String): ")
                .hasMessageContaining("fallback model 'azure:gpt-4o' is not configured for client 'anthropic'")
                .hasMessageContaining("CLIENT:MODEL"));
    }

    @Test
    void aPropertyFallbackToAnUnknownClientNamesTheProperty() {
        this.runner
            .withPropertyValues("llm.throttle.clients.anthropic.models.claude-opus-4-7.fallback=openai:gpt-4o-mini")
            .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidThrottleConfigurationException.class)
                .hasMessageStartingWith(
                        "llm.throttle.clients.anthropic.models.claude-opus-4-7.fallback[0] = 'openai:gpt-4o-mini'")
                .hasMessageContaining("is not configured for client 'anthropic'"));
    }

    @Test
    void aValidCrossClientFallbackStarts() {
        this.runner
            .withPropertyValues("llm.throttle.clients.openai.provider=openai",
                    "llm.throttle.clients.openai.models.gpt-4o-mini.requests-per-minute=500")
            .withBean(CrossClientFallback.class)
            .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void withoutModelTheClientNeedsADefaultModel() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    RestClientAutoConfiguration.class, LlmThrottleAutoConfiguration.class))
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic")
            .withBean(NoClient.class)
            .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                .hasMessageStartingWith(NoClient.class.getName() + ".answer(String): ")
                .hasMessageContaining("names no model, and client 'anthropic' has no default-model")
                .hasMessageContaining("llm.throttle.clients.anthropic.default-model"));
    }

    @Test
    void aClassLevelAnnotationRoutesEveryPublicMethod() {
        this.runner.withBean(ClassLevel.class).run((context) -> {
            ClassLevel bean = context.getBean(ClassLevel.class);
            assertThat(bean.model()).isEqualTo("claude-sonnet-4-5");
            assertThat(bean.toString()).isEqualTo("null");
            assertThat(bean.modelOf()).isEqualTo("null");
        });
    }

    @Test
    void theFailureAnalysisNamesTheMethodAndWhatWouldBeValid() {
        this.runner.withBean(UnknownModel.class).run((context) -> {
            Throwable failure = context.getStartupFailure();
            FailureAnalysis analysis = SpringFactoriesLoader.forDefaultResourceLocation(getClass().getClassLoader())
                .load(FailureAnalyzer.class, ArgumentResolver.of(Environment.class, new MockEnvironment()),
                        (factoryType, implementationName, ex) -> {
                        })
                .stream()
                .map((analyzer) -> analyzer.analyze(failure))
                .filter((candidate) -> candidate != null)
                .findFirst()
                .orElseThrow();
            assertThat(analysis.getDescription()).contains("Where: " + UnknownModel.class.getName() + ".answer(String)")
                .contains("Reason: @Throttled model 'gpt-9' is not configured for client 'anthropic'");
            assertThat(analysis.getAction()).contains("claude-opus-4-7", "claude-sonnet-4-5");
        });
    }

    @Test
    void aValidAnnotationStartsAndIsProxied() {
        this.runner.withBean(Valid.class).run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(AopUtils.isAopProxy(context.getBean(Valid.class))).isTrue();
        });
    }

    @Test
    void anInvalidCircuitPropertyNamesTheProperty() {
        this.runner.withPropertyValues("llm.throttle.circuit.failure-threshold=0")
            .run((context) -> assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidThrottleConfigurationException.class)
                .hasMessageStartingWith("llm.throttle.circuit.failure-threshold = '0': must be at least 1"));
    }

    static class Valid {

        @Throttled(model = "claude-opus-4-7", fallback = "claude-sonnet-4-5", tenant = "#p0", maxWait = "5s",
                fallbackMethod = "cached")
        public String answer(String text) {
            return text;
        }

        protected String cached(String text, RuntimeException cause) {
            return "cached";
        }

    }

    @Throttled(model = "claude-sonnet-4-5")
    static class ClassLevel {

        public String model() {
            return String.valueOf(ThrottleContext.currentModel());
        }

        @Override
        public String toString() {
            return String.valueOf(ThrottleContext.currentModel());
        }

        protected String modelOf() {
            return String.valueOf(ThrottleContext.currentModel());
        }

    }

    static class NoClient {

        @Throttled
        public String answer(String text) {
            return text;
        }

    }

    static class UnknownClient {

        @Throttled(client = "nope")
        public String answer(String text) {
            return text;
        }

    }

    static class UnknownCrossClientFallback {

        @Throttled(client = "anthropic", fallback = "openai:gpt-9")
        public String answer(String text) {
            return text;
        }

    }

    static class UnknownClientFallback {

        @Throttled(fallback = "azure:gpt-4o")
        public String answer(String text) {
            return text;
        }

    }

    static class CrossClientFallback {

        @Throttled(client = "anthropic", fallback = { "claude-sonnet-4-5", "openai:gpt-4o-mini" })
        public String answer(String text) {
            return text;
        }

    }

    static class UnknownModel {

        @Throttled(model = "gpt-9")
        public String answer(String text) {
            return text;
        }

    }

    static class UnknownFallbackModel {

        @Throttled(fallback = { "claude-sonnet-4-5", "claude-haiku-3" })
        public String answer(String text) {
            return text;
        }

    }

    static class MissingFallbackMethod {

        @Throttled(fallbackMethod = "cached")
        public String answer(String text) {
            return text;
        }

    }

    static class FallbackMethodWithWrongParameters {

        @Throttled(fallbackMethod = "cached")
        public String answer(String text) {
            return text;
        }

        String cached(Integer text) {
            return "cached";
        }

    }

    static class FallbackMethodWithWrongReturnType {

        @Throttled(fallbackMethod = "cached")
        public String answer(String text) {
            return text;
        }

        Integer cached(String text, Throwable cause) {
            return 0;
        }

    }

    static class UnparsableMaxWait {

        @Throttled(maxWait = "soon")
        public String answer(String text) {
            return text;
        }

    }

    static class UnparsableTenant {

        @Throttled(tenant = "#text.")
        public String answer(String text) {
            return text;
        }

    }

    static class FinalMethod {

        @Throttled
        public final String answer(String text) {
            return text;
        }

    }

    static class PrivateMethod {

        @Throttled
        private String answer(String text) {
            return text;
        }

        public String call(String text) {
            return answer(text);
        }

    }

    static class StaticMethod {

        @Throttled
        public static String answer(String text) {
            return text;
        }

    }

    static final class FinalClass {

        @Throttled
        public String answer(String text) {
            return text;
        }

    }

    static class FutureReturn {

        @Throttled
        public Future<String> answer(String text) {
            return CompletableFuture.completedFuture(text);
        }

    }

    static class FutureSubclassReturn {

        @Throttled
        public AnswerFuture answer(String text) {
            return new AnswerFuture();
        }

    }

    static class AnswerFuture extends CompletableFuture<String> {

    }

    static class UnregisteredPublisherReturn {

        @Throttled
        public ParallelFlux<String> answer(String text) {
            return Flux.just(text).parallel();
        }

    }

    static class PublisherSubtypeReturn {

        @Throttled
        public SubmissionPublisher<String> answer(String text) {
            return new SubmissionPublisher<>();
        }

    }

    static class SuspendFunction {

        @Throttled
        public @Nullable Object answer(String text, Continuation<? super String> continuation) {
            return text;
        }

    }

    static class MonoWithBlockingFallback {

        @Throttled(fallbackMethod = "cached")
        public Mono<String> answer(String text) {
            return Mono.just(text);
        }

        String cached(String text) {
            return text;
        }

    }

    static class MonoWithFutureFallback {

        @Throttled(fallbackMethod = "cached")
        public Mono<String> answer(String text) {
            return Mono.just(text);
        }

        CompletableFuture<String> cached(String text, Throwable cause) {
            return CompletableFuture.completedFuture(text);
        }

    }

}
