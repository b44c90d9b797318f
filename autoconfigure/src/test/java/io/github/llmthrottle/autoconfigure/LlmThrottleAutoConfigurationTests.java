package io.github.llmthrottle.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

import io.github.llmthrottle.client.CountTokensSettings;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ThrottleSettings;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.restclient.ThrottlingInterceptor;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.provider.TokenEstimator;
import io.github.llmthrottle.retry.Jitter;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

class LlmThrottleAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations
        .of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class, LlmThrottleAutoConfiguration.class));

    @Test
    void withoutClientsRegistersTheInfrastructureButNoRestClient() {
        this.runner.run((context) -> {
            assertThat(context).hasSingleBean(LlmThrottleRegistry.class);
            assertThat(context).hasSingleBean(ThrottlingInterceptor.class);
            assertThat(context).doesNotHaveBean(RestClient.class);
        });
    }

    @Test
    void defaultsMatchTheContract() {
        this.runner.withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic").run((context) -> {
            ThrottleSettings settings = context.getBean(ThrottleSettings.class);
            assertThat(settings.queueCapacity()).isEqualTo(1000);
            assertThat(settings.maxWait()).isEqualTo(Duration.ofSeconds(30));
            assertThat(settings.defaultTenantLimits()).isNull();
            var client = settings.clients().get("anthropic");
            assertThat(client.provider()).isEqualTo(ProviderDialect.ANTHROPIC);
            assertThat(client.baseUrl()).hasToString("https://api.anthropic.com");
            assertThat(client.defaultHeaders()).containsEntry("anthropic-version", "2023-06-01");
            assertThat(client.connectTimeout()).isEqualTo(Duration.ofSeconds(10));
            assertThat(client.readTimeout()).isEqualTo(Duration.ofMinutes(10));
            var retry = client.retry();
            assertThat(retry.maxRetries()).isEqualTo(4);
            assertThat(retry.delay()).isEqualTo(Duration.ofMillis(500));
            assertThat(retry.multiplier()).isEqualTo(2.0);
            assertThat(retry.maxDelay()).isEqualTo(Duration.ofSeconds(30));
            assertThat(retry.jitter()).isEqualTo(Jitter.FULL);
            assertThat(retry.respectRetryAfter()).isTrue();
            assertThat(retry.maxRetryAfter()).isEqualTo(Duration.ofSeconds(60));
        });
    }

    @Test
    void eachClientGetsARestClientNamedAfterIt() {
        this.runner
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.openai.provider=openai")
            .run((context) -> {
                assertThat(context).hasBean("anthropicRestClient");
                assertThat(context).hasBean("openaiRestClient");
                assertThat(context.getBeansOfType(RestClient.class)).hasSize(2);
            });
    }

    @Test
    void anOllamaClientNeedsNeitherABaseUrlNorAnApiKey() {
        this.runner.withPropertyValues("llm.throttle.clients.local.provider=ollama").run((context) -> {
            assertThat(context).hasNotFailed();
            ThrottledClient client = context.getBean(LlmThrottleRegistry.class).getClient("local");
            assertThat(client.getSettings().provider()).isEqualTo(ProviderDialect.OLLAMA);
            assertThat(client.getSettings().baseUrl()).hasToString("http://localhost:11434");
            assertThat(client.getSettings().apiKey()).isNull();
            assertThat(context).hasBean("localRestClient");
        });
    }

    @Test
    void singleClientRestClientIsInjectableByType() {
        this.runner.withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic")
            .run((context) -> assertThat(context).hasSingleBean(RestClient.class));
    }

    @Test
    void theApplicationsOwnRestClientStaysInjectableByTypeAndOursByQualifier() {
        this.runner.withUserConfiguration(ApplicationRestClient.class, RestClientUsers.class)
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                RestClientUsers users = context.getBean(RestClientUsers.class);
                assertThat(users.byType).isSameAs(ApplicationRestClient.CLIENT);
                assertThat(users.byQualifier).isSameAs(context.getBean("anthropicRestClient"))
                    .isNotSameAs(ApplicationRestClient.CLIENT);
            });
    }

    @Test
    void perClientRetryOverridesInheritTheRest() {
        this.runner
            .withPropertyValues("llm.throttle.retry.max-retries=2", "llm.throttle.retry.delay=1s",
                    "llm.throttle.clients.a.provider=anthropic", "llm.throttle.clients.a.retry.jitter=none",
                    "llm.throttle.clients.a.retry.max-delay=5s")
            .run((context) -> {
                var retry = context.getBean(ThrottleSettings.class).clients().get("a").retry();
                assertThat(retry.maxRetries()).isEqualTo(2);
                assertThat(retry.delay()).isEqualTo(Duration.ofSeconds(1));
                assertThat(retry.jitter()).isEqualTo(Jitter.NONE);
                assertThat(retry.maxDelay()).isEqualTo(Duration.ofSeconds(5));
            });
    }

    @Test
    void userDefinedBeansAreKept() {
        this.runner.withUserConfiguration(UserBeans.class)
            .withPropertyValues("llm.throttle.clients.a.provider=anthropic")
            .run((context) -> assertThat(context.getBean(TokenEstimator.class)).isSameAs(UserBeans.ESTIMATOR));
    }

    @Test
    void limitersRunOnTheSystemTimeSourceByDefault() {
        this.runner.run((context) -> assertThat(context.getBean(TimeSource.class)).isSameAs(TimeSource.system()));
    }

    @Test
    void aUserDefinedTimeSourceTimesTheLimiters() {
        this.runner.withUserConfiguration(UserTimeSource.class)
            .withPropertyValues("llm.throttle.clients.a.provider=anthropic",
                    "llm.throttle.clients.a.models.opus.requests-per-minute=10")
            .run((context) -> {
                assertThat(context.getBean(TimeSource.class)).isSameAs(UserTimeSource.CLOCK);
                ModelLimiter limiter = context.getBean(LimiterRegistry.class).limiter("a", "opus");
                limiter.pause(Duration.ofSeconds(5));
                assertThat(limiter.state().pausedUntil()).isEqualTo(Instant.parse("2026-01-01T00:00:05Z"));
            });
    }

    @Test
    void aUserDefinedRestClientOfTheSameNameIsKept() {
        this.runner.withUserConfiguration(UserRestClient.class)
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.openai.provider=openai")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean("anthropicRestClient")).isSameAs(UserRestClient.CLIENT);
                assertThat(context).hasBean("openaiRestClient");
            });
    }

    @Test
    void disabledRegistersNothing() {
        this.runner.withPropertyValues("llm.throttle.enabled=false", "llm.throttle.clients.a.provider=anthropic")
            .run((context) -> {
                assertThat(context).doesNotHaveBean(LlmThrottleRegistry.class);
                assertThat(context).doesNotHaveBean("aRestClient");
            });
    }

    @Test
    void withoutRestClientOnTheClasspathBacksOff() {
        this.runner.withClassLoader(new FilteredClassLoader(RestClient.class))
            .run((context) -> assertThat(context).doesNotHaveBean(LlmThrottleRegistry.class));
    }

    @Test
    void negativeLimitFailsNamingTheProperty() {
        assertFailure("llm.throttle.clients.a.models.opus.requests-per-minute=-5",
                "llm.throttle.clients.a.models.opus.requests-per-minute", "must be positive");
    }

    @Test
    void zeroTenantLimitFailsNamingTheProperty() {
        assertFailure("llm.throttle.tenants.overrides.acme.input-tokens-per-minute=0",
                "llm.throttle.tenants.overrides.acme.input-tokens-per-minute", "must be positive");
    }

    @Test
    void countTokensForAClientThatIsNotAnthropicFailsAtStartupSayingWhy() {
        this.runner
            .withPropertyValues("llm.throttle.clients.a.provider=openai",
                    "llm.throttle.clients.a.estimation=count-tokens")
            .run((context) -> {
                assertThat(context).hasFailed();
                FailureAnalysis analysis = analyze(context);
                assertThat(analysis.getDescription()).contains("llm.throttle.clients.a.estimation")
                    .contains("count-tokens")
                    .contains("needs provider: anthropic");
                assertThat(analysis.getAction()).contains("estimation: characters");
            });
    }

    @Test
    void countTokensPropertiesReachTheClientsSettings() {
        this.runner
            .withPropertyValues("llm.throttle.clients.a.provider=anthropic",
                    "llm.throttle.clients.a.estimation=count-tokens",
                    "llm.throttle.clients.a.count-tokens.min-characters=1000",
                    "llm.throttle.clients.a.count-tokens.requests-per-minute=50",
                    "llm.throttle.clients.a.count-tokens.timeout=500ms")
            .run((context) -> assertThat(context.getBean(ThrottleSettings.class).clients().get("a").countTokens())
                .isEqualTo(new CountTokensSettings(true, 1000, 50, Duration.ofMillis(500))));
    }

    @Test
    void unknownJitterFailsListingTheValidValues() {
        this.runner.withPropertyValues("llm.throttle.retry.jitter=wobbly").run((context) -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = analyze(context);
            assertThat(analysis.getDescription()).contains("llm.throttle.retry.jitter").contains("wobbly");
            assertThat(analysis.getAction()).contains("NONE")
                .contains("FULL")
                .contains("EQUAL")
                .contains("DECORRELATED");
        });
    }

    @Test
    void unknownProviderFailsListingTheValidValues() {
        this.runner.withPropertyValues("llm.throttle.clients.a.provider=gemini").run((context) -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = analyze(context);
            assertThat(analysis.getDescription()).contains("llm.throttle.clients.a.provider").contains("gemini");
            assertThat(analysis.getAction()).contains("ANTHROPIC").contains("OPENAI").contains("GENERIC");
        });
    }

    @Test
    void malformedBaseUrlFailsNamingTheProperty() {
        assertFailure("llm.throttle.clients.a.base-url=htp:/nowhere", "llm.throttle.clients.a.base-url",
                "http or https");
        assertFailure("llm.throttle.clients.a.base-url=https://exa mple.com", "llm.throttle.clients.a.base-url",
                "not a valid URL");
    }

    @Test
    void genericProviderWithoutBaseUrlFails() {
        assertFailure("llm.throttle.clients.a.provider=generic", "llm.throttle.clients.a.base-url", "required");
    }

    @Test
    void fallbackNamingAnUnknownModelFails() {
        this.runner
            .withPropertyValues("llm.throttle.clients.a.provider=anthropic",
                    "llm.throttle.clients.a.models.opus.fallback[0]=sonet",
                    "llm.throttle.clients.a.models.sonnet.requests-per-minute=10")
            .run((context) -> {
                FailureAnalysis analysis = analyze(context);
                assertThat(analysis.getDescription()).contains("llm.throttle.clients.a.models.opus.fallback[0]")
                    .contains("sonet");
                assertThat(analysis.getAction()).contains("[opus, sonnet]");
            });
    }

    @Test
    void maxDelayBelowDelayFails() {
        assertFailure("llm.throttle.retry.max-delay=100ms", "llm.throttle.retry.max-delay", "below");
    }

    @Test
    void clientRetryOverrideIsValidatedToo() {
        assertFailure("llm.throttle.clients.a.retry.multiplier=0.5", "llm.throttle.clients.a.retry.multiplier",
                "at least 1.0");
    }

    @Test
    void negativeRetriesAndCapacityFail() {
        assertFailure("llm.throttle.retry.max-retries=-1", "llm.throttle.retry.max-retries", "negative");
        assertFailure("llm.throttle.queue.capacity=0", "llm.throttle.queue.capacity", "positive");
    }

    @Test
    void apiKeyNeverAppearsInSettingsToString() {
        this.runner
            .withPropertyValues("llm.throttle.clients.a.provider=anthropic",
                    "llm.throttle.clients.a.api-key=sk-ant-secret-123")
            .run((context) -> {
                ThrottleSettings settings = context.getBean(ThrottleSettings.class);
                assertThat(settings.toString()).doesNotContain("sk-ant-secret-123");
                assertThat(settings.clients().get("a").apiKey()).isEqualTo("sk-ant-secret-123");
            });
    }

    private void assertFailure(String property, String name, String reason) {
        this.runner.withPropertyValues("llm.throttle.clients.a.provider=anthropic", property).run((context) -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = analyze(context);
            assertThat(analysis.getDescription()).contains(name).contains(reason);
            assertThat(analysis.getAction()).isNotBlank();
        });
    }

    private static FailureAnalysis analyze(AssertableApplicationContext context) {
        Throwable failure = context.getStartupFailure();
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader
            .forDefaultResourceLocation(LlmThrottleAutoConfigurationTests.class.getClassLoader())
            .load(FailureAnalyzer.class, ArgumentResolver.of(Environment.class, new MockEnvironment()),
                    (factoryType, implementationName, ex) -> {
                    });
        FailureAnalysis analysis = analyzers.stream()
            .map((analyzer) -> analyzer.analyze(failure))
            .filter(Objects::nonNull)
            .findFirst()
            .orElse(null);
        assertThat(analysis).as("failure analysis of %s", failure).isNotNull();
        return analysis;
    }

    @Configuration(proxyBeanMethods = false)
    static class UserRestClient {

        static final RestClient CLIENT = RestClient.create("https://example.com");

        @Bean
        RestClient anthropicRestClient() {
            return CLIENT;
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class ApplicationRestClient {

        static final RestClient CLIENT = RestClient.create("https://example.com");

        @Bean
        RestClient applicationRestClient() {
            return CLIENT;
        }

    }

    static class RestClientUsers {

        final RestClient byType;

        final RestClient byQualifier;

        RestClientUsers(RestClient byType, @Qualifier("anthropicRestClient") RestClient byQualifier) {
            this.byType = byType;
            this.byQualifier = byQualifier;
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class UserTimeSource {

        static final FakeClock CLOCK = FakeClock.at("2026-01-01T00:00:00Z");

        @Bean
        TimeSource userTimeSource() {
            return CLOCK;
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class UserBeans {

        static final TokenEstimator ESTIMATOR = (model, request) -> 1;

        @Bean
        TokenEstimator userEstimator() {
            return ESTIMATOR;
        }

    }

}
