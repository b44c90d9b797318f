package io.github.llmthrottle.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.TenantQuotaExceededException;
import io.github.llmthrottle.TokenQuotaExceededException;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.autoconfigure.LlmThrottleHealthAutoConfiguration;
import io.github.llmthrottle.client.TenantResolver;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.LlmSimulatorExtension;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The health indicator with token quotas of a day, against the simulator on a fake clock:
 * an exhausted quota of a model or a client puts the model in
 * {@link ModelHealthState#QUOTA_EXHAUSTED} until the window resets, an exhausted tenant's
 * quota is only a detail, and health stays {@code UP} throughout.
 */
class LlmThrottleHealthIndicatorQuotaTests {

    private static final String MODEL = "claude-sonnet-4-5";

    private static final String OTHER = "claude-haiku-4-5";

    @RegisterExtension
    static final LlmSimulatorExtension simulator = LlmSimulatorExtension.of(LlmSimulator.builder()
        .model(MODEL, ModelLimits.of(1000, 1_000_000, 100_000))
        .model(OTHER, ModelLimits.of(1000, 1_000_000, 100_000))
        .noLatency()
        .outputTokens(10));

    /** An hour before midnight UTC, where the day's quotas reset. */
    private final FakeClock clock = FakeClock.at("2026-03-31T23:00:00Z");

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                            LlmThrottleAutoConfiguration.class, LlmThrottleHealthAutoConfiguration.class))
            .withBean(TimeSource.class, () -> this.clock)
            .withBean(TenantResolver.class, () -> (request) -> request.headers().first("X-Tenant"))
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + simulator.baseUrl(),
                    "llm.throttle.clients.anthropic.models." + MODEL + ".requests-per-minute=1000",
                    "llm.throttle.clients.anthropic.models." + OTHER + ".requests-per-minute=1000",
                    "llm.throttle.slow-start.enabled=false");
    }

    @Test
    void anExhaustedModelQuotaShowsUntilItsWindowResets() {
        runner().withPropertyValues("llm.throttle.clients.anthropic.models." + MODEL + ".tokens-per-day=100")
            .run((context) -> {
                RestClient client = context.getBean("anthropicRestClient", RestClient.class);
                call(client, MODEL, null);
                assertThat(model(context, MODEL)).containsEntry("state", ModelHealthState.OK)
                    .doesNotContainKey("quotaExhaustedUntil");
                assertThatExceptionOfType(TokenQuotaExceededException.class).isThrownBy(() -> {
                    for (int i = 0; i < 20; i++) {
                        call(client, MODEL, null);
                    }
                });
                Health health = health(context);
                assertThat(health.getStatus()).isEqualTo(Status.UP);
                assertThat(model(context, MODEL)).containsEntry("state", ModelHealthState.QUOTA_EXHAUSTED)
                    .containsEntry("quotaExhaustedUntil", "2026-04-01T00:00:00Z");
                // the other model has no quota
                assertThat(model(context, OTHER)).containsEntry("state", ModelHealthState.OK);
                this.clock.advance(Duration.ofHours(1));
                assertThat(model(context, MODEL)).containsEntry("state", ModelHealthState.OK)
                    .doesNotContainKey("quotaExhaustedUntil");
            });
    }

    @Test
    void anExhaustedClientQuotaShowsOnEveryModelOfTheClient() {
        runner().withPropertyValues("llm.throttle.clients.anthropic.tokens-per-day=100").run((context) -> {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            assertThatExceptionOfType(TokenQuotaExceededException.class).isThrownBy(() -> {
                for (int i = 0; i < 20; i++) {
                    call(client, MODEL, null);
                }
            });
            assertThat(model(context, MODEL)).containsEntry("state", ModelHealthState.QUOTA_EXHAUSTED);
            assertThat(model(context, OTHER)).containsEntry("state", ModelHealthState.QUOTA_EXHAUSTED);
            assertThat(health(context).getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void anExhaustedTenantQuotaIsCountedWithoutItsIdUnlessTenantIdsAreShown() {
        runner().withPropertyValues("llm.throttle.tenants.default.tokens-per-day=40").run((context) -> {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            assertThatExceptionOfType(TenantQuotaExceededException.class).isThrownBy(() -> {
                for (int i = 0; i < 10; i++) {
                    call(client, MODEL, "acme");
                }
            });
            Health health = health(context);
            assertThat(health.getDetails()).doesNotContainKey("exhaustedTenantQuotas")
                .containsEntry("exhaustedTenantQuotaCount", 1);
            assertThat(health.toString()).doesNotContain("acme");
        });
    }

    @Test
    void anExhaustedTenantQuotaIsOnlyADetail() {
        runner()
            .withPropertyValues("llm.throttle.tenants.default.tokens-per-day=40", "llm.throttle.show-tenants=always")
            .run((context) -> {
                RestClient client = context.getBean("anthropicRestClient", RestClient.class);
                assertThat(health(context).getDetails()).doesNotContainKey("exhaustedTenantQuotas");
                assertThatExceptionOfType(TenantQuotaExceededException.class).isThrownBy(() -> {
                    for (int i = 0; i < 10; i++) {
                        call(client, MODEL, "acme");
                    }
                });
                call(client, MODEL, "globex");
                Health health = health(context);
                assertThat(health.getStatus()).isEqualTo(Status.UP);
                assertThat(health.getDetails()).containsEntry("exhaustedTenantQuotas",
                        Map.of("acme", "2026-04-01T00:00:00Z"));
                assertThat(model(context, MODEL)).containsEntry("state", ModelHealthState.OK);
                this.clock.advance(Duration.ofHours(1));
                assertThat(health(context).getDetails()).doesNotContainKey("exhaustedTenantQuotas");
            });
    }

    private static Health health(AssertableApplicationContext context) {
        return context.getBean(LlmThrottleHealthIndicator.class).health();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> model(AssertableApplicationContext context, String model) {
        return ((Map<String, Map<String, Object>>) health(context).getDetails().get("anthropic")).get(model);
    }

    private static void call(RestClient client, String model, String tenant) {
        RestClient.RequestBodySpec request = client.post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON);
        if (tenant != null) {
            request.header("X-Tenant", tenant);
        }
        request
            .body(Map.of("model", model, "max_tokens", 20, "messages",
                    List.of(Map.of("role", "user", "content", "Count to three, please."))))
            .retrieve()
            .body(String.class);
    }

}
