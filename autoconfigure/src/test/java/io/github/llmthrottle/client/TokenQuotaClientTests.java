package io.github.llmthrottle.client;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.TenantQuotaExceededException;
import io.github.llmthrottle.TokenQuotaExceededException;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.LlmSimulatorExtension;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Token quotas per day through the throttled {@code RestClient}, against the simulator,
 * on a fake clock: each call counts its usage (input plus output tokens), a call whose
 * estimate no longer fits fails at once without reaching the provider, and the count
 * starts again at midnight UTC.
 */
class TokenQuotaClientTests {

    private static final String MODEL = "claude-sonnet-4-5";

    @RegisterExtension
    static final LlmSimulatorExtension simulator = LlmSimulatorExtension
        .of(LlmSimulator.builder().model(MODEL, ModelLimits.of(1000, 1_000_000, 100_000)).noLatency().outputTokens(10));

    private final FakeClock clock = FakeClock.at("2026-03-31T23:00:00Z");

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    RestClientAutoConfiguration.class, LlmThrottleAutoConfiguration.class))
            .withBean(TimeSource.class, () -> this.clock)
            .withBean(TenantResolver.class, () -> (request) -> request.headers().first("X-Tenant"))
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + simulator.baseUrl(),
                    "llm.throttle.slow-start.enabled=false");
    }

    @Test
    void aModelsDailyQuotaFailsCallsFastUntilMidnightUtc() {
        runner().withPropertyValues("llm.throttle.clients.anthropic.models." + MODEL + ".tokens-per-day=100")
            .run((context) -> {
                RestClient client = context.getBean("anthropicRestClient", RestClient.class);
                // each call counts its input and output tokens; its estimate (input plus
                // max_tokens 20) must fit in what is left
                TokenQuotaExceededException failure = null;
                int succeeded = 0;
                long attempts = 0;
                while (failure == null && succeeded < 20) {
                    attempts = simulator.simulator().stats(MODEL).attempts();
                    try {
                        call(client, null);
                        succeeded++;
                    }
                    catch (TokenQuotaExceededException ex) {
                        failure = ex;
                    }
                }
                assertThat(succeeded).isBetween(2, 10);
                assertThat(failure).isNotNull();
                assertThat(failure.getRetryAfter()).isEqualTo(Duration.ofHours(1));
                assertThat(failure.getModel()).isEqualTo(MODEL);
                // it failed before reaching the provider
                assertThat(simulator.simulator().stats(MODEL).attempts()).isEqualTo(attempts);
                TokenQuotas quotas = context.getBean(TokenQuotas.class);
                TokenQuotas.QuotaState day = quotas.states(Map.of("anthropic", List.of(MODEL))).get(0);
                assertThat(day.used()).isPositive().isLessThanOrEqualTo(100L);
                assertThat(day.remaining()).isEqualTo(100 - day.used());
                this.clock.advance(Duration.ofHours(1));
                call(client, null);
            });
    }

    @Test
    void aTenantsDailyQuotaFailsOnlyThatTenantsCalls() {
        runner().withPropertyValues("llm.throttle.tenants.overrides.acme.tokens-per-day=40").run((context) -> {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            call(client, "acme");
            assertThatExceptionOfType(TenantQuotaExceededException.class).isThrownBy(() -> {
                for (int i = 0; i < 10; i++) {
                    call(client, "acme");
                }
            }).satisfies((ex) -> assertThat(ex.getTenant()).isEqualTo("acme"));
            call(client, "globex");
            this.clock.advance(Duration.ofHours(1));
            call(client, "acme");
        });
    }

    @Test
    void aStreamThatEndsWithAnErrorEventCountsAgainstTheQuota() {
        simulator.simulator().script(MODEL, Fault.streamError(2));
        runner().withPropertyValues("llm.throttle.clients.anthropic.models." + MODEL + ".tokens-per-day=100000")
            .run((context) -> {
                RestClient client = context.getBean("anthropicRestClient", RestClient.class);
                String events = client.post()
                    .uri("/v1/messages")
                    .contentType(MediaType.APPLICATION_JSON)
                    .body(Map.of("model", MODEL, "max_tokens", 20, "stream", true, "messages",
                            List.of(Map.of("role", "user", "content", "Count to three, please."))))
                    .exchange((request, response) -> {
                        try (InputStream in = response.getBody()) {
                            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                        }
                    });
                assertThat(events).contains("event: error");
                TokenQuotas quotas = context.getBean(TokenQuotas.class);
                assertThat(quotas.states(Map.of("anthropic", List.of(MODEL))).get(0).used()).isPositive();
            });
    }

    private static void call(RestClient client, String tenant) {
        RestClient.RequestBodySpec request = client.post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON);
        if (tenant != null) {
            request.header("X-Tenant", tenant);
        }
        request
            .body(Map.of("model", MODEL, "max_tokens", 20, "messages",
                    List.of(Map.of("role", "user", "content", "Count to three, please."))))
            .retrieve()
            .body(String.class);
    }

}
