package io.github.llmthrottle.client;

import java.util.List;
import java.util.Map;

import io.github.llmthrottle.TenantQuotaExceededException;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.LlmSimulatorExtension;
import io.github.llmthrottle.test.ModelLimits;
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
 * Outside a {@code @Throttled} method the tenant comes from a {@link TenantResolver}
 * bean: its limits apply, and observers see it while the call runs.
 */
class TenantResolverTests {

    private static final String MODEL = "claude-sonnet-4-5";

    @RegisterExtension
    static final LlmSimulatorExtension simulator = LlmSimulatorExtension
        .of(LlmSimulator.builder().model(MODEL, ModelLimits.of(1000, 1_000_000, 100_000)).noLatency());

    @Test
    void resolvedTenantsQuotaAppliesAndObserversSeeTheTenant() {
        List<String> tenantsSeen = new java.util.concurrent.CopyOnWriteArrayList<>();
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    RestClientAutoConfiguration.class, LlmThrottleAutoConfiguration.class))
            .withBean(TenantResolver.class, () -> (request) -> request.headers().first("X-Tenant"))
            .withBean(ThrottleObserver.class, () -> new ThrottleObserver() {

                @Override
                public ThrottleObserver forCall(Caller caller) {
                    return new ThrottleObserver() {

                        @Override
                        public void onAdmitted(String client, String model, io.github.llmthrottle.Priority priority,
                                java.time.Duration waited) {
                            tenantsSeen.add(String.valueOf(caller.tenant()));
                        }

                    };
                }

            })
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=" + simulator.baseUrl(),
                    "llm.throttle.tenants.overrides.acme.requests-per-minute=2", "llm.throttle.queue.max-wait=200ms")
            .run((context) -> {
                RestClient client = context.getBean("anthropicRestClient", RestClient.class);
                call(client, "acme");
                call(client, "acme");
                assertThatExceptionOfType(TenantQuotaExceededException.class).isThrownBy(() -> call(client, "acme"))
                    .withMessageContaining("acme");
                call(client, "globex");
                assertThat(tenantsSeen).containsExactly("acme", "acme", "globex");
                assertThat(ThrottleContext.current()).isNull();
            });
    }

    private static void call(RestClient client, String tenant) {
        client.post()
            .uri("/v1/messages")
            .header("X-Tenant", tenant)
            .contentType(MediaType.APPLICATION_JSON)
            .body(Map.of("model", MODEL, "max_tokens", 10, "messages",
                    List.of(Map.of("role", "user", "content", "hi"))))
            .retrieve()
            .body(String.class);
    }

}
