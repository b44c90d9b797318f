package io.github.llmthrottle.autoconfigure;

import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.metrics.GenAiClientMetrics;
import io.github.llmthrottle.metrics.QuotaMetrics;
import io.github.llmthrottle.metrics.ThrottleMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.observation.ChatModelMeterObservationHandler;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

class LlmThrottleMetricsAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                LlmThrottleAutoConfiguration.class, MetricsAutoConfiguration.class,
                SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                LlmThrottleMetricsAutoConfiguration.class))
        .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.models.opus.requests-per-minute=50");

    @Test
    void registersTheMetricsAndTheGaugesOfConfiguredModels() {
        this.runner.run((context) -> {
            assertThat(context).hasSingleBean(ThrottleMetrics.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("llm.inflight").tags("client", "anthropic", "model", "opus").gauge()).isNotNull();
            assertThat(registry.find("llm.queue.wait").tagKeys("tenant").meters()).isEmpty();
        });
    }

    @Test
    void registersTheGaugesOfTheTokenQuotas() {
        this.runner.withPropertyValues("llm.throttle.clients.anthropic.models.opus.tokens-per-month=5000")
            .run((context) -> {
                assertThat(context).hasSingleBean(QuotaMetrics.class);
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.get("llm.quota.limit")
                    .tags("client", "anthropic", "model", "opus", "scope", "model", "window", "month")
                    .gauge()
                    .value()).isEqualTo(5000);
                assertThat(registry.get("llm.quota.used").tags("model", "opus").gauge().value()).isZero();
            });
    }

    @Test
    void tenantTagIsOptIn() {
        this.runner.withPropertyValues("llm.throttle.metrics.tenant-tag=true")
            .run((context) -> assertThat(context.getBean(MeterRegistry.class).find("llm.calls").meters()).isEmpty());
    }

    @Test
    void canBeTurnedOff() {
        this.runner.withPropertyValues("llm.throttle.metrics.enabled=false")
            .run((context) -> assertThat(context).doesNotHaveBean(ThrottleMetrics.class)
                .doesNotHaveBean(QuotaMetrics.class));
    }

    @Test
    void withoutMicrometerNothingIsRegistered() {
        this.runner.withClassLoader(new FilteredClassLoader("io.micrometer.core"))
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ThrottleMetrics.class));
    }

    @Test
    void withoutAMeterRegistryNothingIsRegistered() {
        new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                            LlmThrottleAutoConfiguration.class, LlmThrottleMetricsAutoConfiguration.class))
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ThrottleMetrics.class));
    }

    @Test
    void aUserMeterRegistryIsUsed() {
        new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                            LlmThrottleAutoConfiguration.class, LlmThrottleMetricsAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class)
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.models.opus.requests-per-minute=50")
            .run((context) -> assertThat(context.getBean(SimpleMeterRegistry.class).find("llm.inflight").gauge())
                .isNotNull());
    }

    @Test
    void circuitStateGaugesShowTheCurrentStateOfEachConfiguredModel() {
        this.runner.run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("llm.circuit.state").tags("model", "opus", "state", "closed").gauge().value())
                .isEqualTo(1);
            assertThat(registry.get("llm.circuit.state").tags("model", "opus", "state", "open").gauge().value())
                .isZero();
            assertThat(registry.get("llm.circuit.state").tags("model", "opus", "state", "half_open").gauge().value())
                .isZero();
            assertThat(context.getBean(LlmThrottleRegistry.class).getClient("anthropic").findModel("opus")).isNotNull();
        });
    }

    @Test
    void genAiMetricsAreOptIn() {
        this.runner.run((context) -> {
            assertThat(context).doesNotHaveBean(GenAiClientMetrics.class);
            assertThat(context.getBean(MeterRegistry.class).find("gen_ai.client.operation.duration").meters())
                .isEmpty();
        });
        this.runner.withPropertyValues("llm.throttle.metrics.gen-ai.enabled=true").run((context) -> {
            assertThat(context).hasSingleBean(GenAiClientMetrics.class);
            assertThat(context.getBean(GenAiClientMetrics.class).isTokenUsagePublished()).isTrue();
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.find("gen_ai.client.operation.duration").tag("gen_ai.request.model", "opus").timer())
                .isNotNull();
            assertThat(registry.find("gen_ai.client.token.usage").summaries()).hasSize(2);
        });
    }

    @Test
    void genAiTokenUsageIsLeftToSpringAiWhenItsChatModelObservationsPublishTheirOwn() {
        this.runner.withPropertyValues("llm.throttle.metrics.gen-ai.enabled=true")
            .withBean(ChatModelMeterObservationHandler.class,
                    () -> new ChatModelMeterObservationHandler(new SimpleMeterRegistry()))
            .run((context) -> {
                assertThat(context.getBean(GenAiClientMetrics.class).isTokenUsagePublished()).isFalse();
                assertThat(context.getBean(MeterRegistry.class).find("gen_ai.client.token.usage").meters()).isEmpty();
                assertThat(context.getBean(MeterRegistry.class).find("gen_ai.client.operation.duration").meters())
                    .isNotEmpty();
            });
    }

    @Test
    void genAiTokenUsageCanBeForcedEitherWay() {
        this.runner
            .withPropertyValues("llm.throttle.metrics.gen-ai.enabled=true",
                    "llm.throttle.metrics.gen-ai.token-usage=always")
            .withBean(ChatModelMeterObservationHandler.class,
                    () -> new ChatModelMeterObservationHandler(new SimpleMeterRegistry()))
            .run((context) -> assertThat(context.getBean(GenAiClientMetrics.class).isTokenUsagePublished()).isTrue());
        this.runner
            .withPropertyValues("llm.throttle.metrics.gen-ai.enabled=true",
                    "llm.throttle.metrics.gen-ai.token-usage=never")
            .run((context) -> assertThat(context.getBean(GenAiClientMetrics.class).isTokenUsagePublished()).isFalse());
    }

    @Test
    void withoutSpringAiTokenUsageIsPublished() {
        this.runner.withPropertyValues("llm.throttle.metrics.gen-ai.enabled=true")
            .withClassLoader(new FilteredClassLoader("org.springframework.ai"))
            .run((context) -> assertThat(context.getBean(GenAiClientMetrics.class).isTokenUsagePublished()).isTrue());
    }

}
