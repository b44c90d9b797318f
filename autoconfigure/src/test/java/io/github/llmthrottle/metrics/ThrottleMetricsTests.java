package io.github.llmthrottle.metrics;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.client.Caller;
import io.github.llmthrottle.client.ClientSettings;
import io.github.llmthrottle.client.ClientSettings.ModelSettings;
import io.github.llmthrottle.client.ThrottleObserver;
import io.github.llmthrottle.client.ThrottleObserver.CallOutcome;
import io.github.llmthrottle.client.ThrottleSettings;
import io.github.llmthrottle.limit.ConcurrencyLimits;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.retry.RetrySettings;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.time.FakeClock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Meters of {@link ThrottleMetrics} against a simple registry: registered once, tagged
 * with client and model, a tenant tag only on request.
 */
class ThrottleMetricsTests {

    private final FakeClock clock = FakeClock.at("2026-08-20T10:00:00Z");

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private final ThrottleSettings settings = new ThrottleSettings(Map.of("anthropic",
            new ClientSettings("anthropic", ProviderDialect.ANTHROPIC, URI.create("http://localhost"), "secret",
                    Duration.ofSeconds(1), Duration.ofSeconds(1), Map.of(), "opus", ModelLimits.UNLIMITED,
                    Map.of("opus", new ModelSettings("opus", new ModelLimits(60L, 1000L, 500L, 4), List.of("sonnet")),
                            "sonnet", new ModelSettings("sonnet", ModelLimits.UNLIMITED, List.of())),
                    RetrySettings.DEFAULTS)),
            10, Duration.ofSeconds(1), null, Map.of());

    private final LimiterRegistry limiters = new LimiterRegistry(this.settings.clientLimits(), 10,
            Duration.ofSeconds(1), (tenant) -> null, new LocalBucketStore(this.clock), this.clock);

    @Test
    void configuredModelsHaveTheirGaugesAndCountersAtStartup() {
        new ThrottleMetrics(this.registry, this.settings, this.limiters, ThrottleMetricsOptions.DEFAULTS);
        assertThat(this.registry.get("llm.queue.size").tags("client", "anthropic", "model", "opus").gauges())
            .hasSize(3);
        assertThat(this.registry.get("llm.ratelimit.remaining")
            .tags("model", "opus", "resource", "requests", "source", "local")
            .gauge()
            .value()).isEqualTo(60);
        assertThat(this.registry.get("llm.concurrency.limit").tags("model", "opus").gauge().value()).isEqualTo(4);
        // without max-concurrency the adaptive limit starts at its default initial value
        assertThat(this.registry.get("llm.concurrency.limit").tags("model", "sonnet").gauge().value())
            .isEqualTo(ConcurrencyLimits.DEFAULT_INITIAL);
        assertThat(this.registry.get("llm.rejections").tags("model", "opus").counters())
            .hasSize(RejectionReason.values().length);
        assertThat(this.registry.get("llm.fallbacks").tags("from", "opus", "to", "sonnet").counter().count()).isZero();
    }

    @Test
    void repeatedEventsReuseTheirMeters() {
        ThrottleMetrics metrics = new ThrottleMetrics(this.registry, this.settings, this.limiters,
                ThrottleMetricsOptions.DEFAULTS);
        events(metrics, "opus");
        List<Meter> after = this.registry.getMeters();
        for (int i = 0; i < 10; i++) {
            events(metrics, "opus");
        }
        assertThat(this.registry.getMeters()).hasSameSizeAs(after);
        assertThat(this.registry.get("llm.requests")
            .tags("model", "opus", "outcome", "success", "status", "200")
            .timer()
            .count()).isEqualTo(11);
        assertThat(this.registry.get("llm.tokens").tags("model", "opus", "type", "output").counter().count())
            .isEqualTo(11 * 7);
        assertThat(this.registry.get("llm.queue.wait").tags("model", "opus", "priority", "realtime").timer().count())
            .isEqualTo(11);
        assertThat(
                this.registry.get("llm.queue.wait.slo").tags("model", "opus", "priority", "realtime").timer().count())
            .isEqualTo(11);
    }

    @Test
    void aModelFirstSeenLaterGetsItsGaugesOnce() {
        ThrottleMetrics metrics = new ThrottleMetrics(this.registry, this.settings, this.limiters,
                ThrottleMetricsOptions.DEFAULTS);
        assertThat(this.registry.find("llm.inflight").tags("model", "haiku").gauge()).isNull();
        this.limiters.limiter("anthropic", "haiku");
        events(metrics, "haiku");
        events(metrics, "haiku");
        assertThat(this.registry.get("llm.inflight").tags("client", "anthropic", "model", "haiku").gauges()).hasSize(1);
        assertThat(this.registry.get("llm.ratelimit.remaining").tags("model", "haiku").gauges()).hasSize(8);
    }

    @Test
    void noMeterHasATenantTagUnlessItIsTurnedOn() {
        ThrottleMetrics metrics = new ThrottleMetrics(this.registry, this.settings, this.limiters,
                ThrottleMetricsOptions.DEFAULTS);
        events(metrics.forCall(caller("acme")), "opus");
        assertThat(this.registry.getMeters()).allSatisfy((meter) -> {
            assertThat(meter.getId().getTag("tenant")).isNull();
            assertThat(meter.getId().getTag("client")).isEqualTo("anthropic");
            assertThat(meter.getId().getTag("model")).isNotNull();
        });
    }

    @Test
    void theTenantTagNamesTheTenantOfTheCallsCaller() {
        ThrottleMetrics metrics = new ThrottleMetrics(this.registry, this.settings, this.limiters,
                new ThrottleMetricsOptions(true, List.of(0.5), List.of()));
        metrics.forCall(caller("acme")).onCall("anthropic", "opus", CallOutcome.SUCCESS, Duration.ofMillis(5));
        metrics.forCall(Caller.DEFAULT).onCall("anthropic", "opus", CallOutcome.SUCCESS, Duration.ofMillis(5));
        assertThat(this.registry.get("llm.calls").tags("tenant", "acme").timer().count()).isEqualTo(1);
        assertThat(this.registry.get("llm.calls").tags("tenant", "none").timer().count()).isEqualTo(1);
        assertThat(this.registry.find("llm.queue.wait.slo").meters()).isEmpty();
        // gauges describe the model, not a tenant
        assertThat(this.registry.get("llm.inflight").gauge().getId().getTag("tenant")).isNull();
    }

    @Test
    void tenantSeriesAreBoundedTheLeastRecentlyUsedTenantsSeriesRemoved() {
        ThrottleSettings settings = this.settings.withLimiter(this.settings.limiter().withMaxTrackedNames(2));
        ThrottleMetrics metrics = new ThrottleMetrics(this.registry, settings, this.limiters,
                new ThrottleMetricsOptions(true, List.of(), List.of()));
        for (String tenant : List.of("a", "b", "a", "c")) {
            events(metrics.forCall(caller(tenant)), "opus");
        }
        // b was used least recently when c came
        assertThat(this.registry.find("llm.calls").tags("tenant", "b").meters()).isEmpty();
        assertThat(this.registry.find("llm.tokens").tags("tenant", "b").meters()).isEmpty();
        assertThat(this.registry.get("llm.calls").tags("tenant", "a").timer().count()).isEqualTo(2);
        assertThat(this.registry.get("llm.calls").tags("tenant", "c").timer().count()).isEqualTo(1);
        assertThat(this.registry.getMeters().stream().map((meter) -> meter.getId().getTag("tenant")).distinct())
            .containsExactlyInAnyOrder(null, "a", "c");
    }

    @Test
    void theThreadsContextDoesNotTagACallsEvents() {
        ThrottleMetrics metrics = new ThrottleMetrics(this.registry, this.settings, this.limiters,
                new ThrottleMetricsOptions(true, List.of(), List.of()));
        try (ThrottleContext.Scope scope = ThrottleContext
            .open(new ThrottleContext("anthropic", "opus", Priority.NORMAL, "thread", 0, null))) {
            metrics.onCall("anthropic", "opus", CallOutcome.SUCCESS, Duration.ofMillis(5));
            metrics.forCall(caller("acme")).onCall("anthropic", "opus", CallOutcome.SUCCESS, Duration.ofMillis(5));
        }
        assertThat(this.registry.get("llm.calls").tags("tenant", "none").timer().count()).isEqualTo(1);
        assertThat(this.registry.get("llm.calls").tags("tenant", "acme").timer().count()).isEqualTo(1);
        assertThat(this.registry.find("llm.calls").tags("tenant", "thread").meters()).isEmpty();
    }

    @Test
    void withoutTheTenantTagACallsViewIsTheMetricsThemselves() {
        ThrottleMetrics metrics = new ThrottleMetrics(this.registry, this.settings, this.limiters,
                ThrottleMetricsOptions.DEFAULTS);
        assertThat(metrics.forCall(caller("acme"))).isSameAs(metrics);
    }

    private static Caller caller(String tenant) {
        return new Caller(Priority.NORMAL, tenant, null, null);
    }

    private void events(ThrottleObserver metrics, String model) {
        metrics.onAdmitted("anthropic", model, Priority.REALTIME, Duration.ofMillis(3));
        metrics.onAttempt("anthropic", model, Outcome.SUCCESS, 200, Duration.ofMillis(20));
        metrics.onUsage("anthropic", model, new Usage(5, 7));
        metrics.onCall("anthropic", model, CallOutcome.SUCCESS, Duration.ofMillis(25));
    }

}
