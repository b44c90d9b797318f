package io.github.llmthrottle.metrics;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.client.ClientSettings;
import io.github.llmthrottle.client.ClientSettings.ModelSettings;
import io.github.llmthrottle.client.ThrottleObserver.CallOutcome;
import io.github.llmthrottle.client.ThrottleSettings;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.quota.LocalQuotaStore;
import io.github.llmthrottle.quota.QuotaSettings;
import io.github.llmthrottle.quota.QuotaSettings.ClientQuotas;
import io.github.llmthrottle.quota.TokenQuota;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.retry.RetrySettings;
import io.github.llmthrottle.time.FakeClock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Gauges of {@link QuotaMetrics} against a simple registry on a fake clock: what is used
 * of each quota and its limit, back to zero when the window resets, and a bounded set of
 * tenants.
 */
class QuotaMetricsTests {

    /** Two hours before midnight UTC, the end of the day (and of the month: Nov 30). */
    private final FakeClock clock = FakeClock.at("2026-11-30T22:00:00Z");

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private final ThrottleSettings settings = new ThrottleSettings(Map.of("anthropic",
            new ClientSettings("anthropic", ProviderDialect.ANTHROPIC, URI.create("http://localhost"), "secret",
                    Duration.ofSeconds(1), Duration.ofSeconds(1), Map.of(), "opus", ModelLimits.UNLIMITED,
                    Map.of("opus", new ModelSettings("opus", ModelLimits.UNLIMITED, List.of()), "sonnet",
                            new ModelSettings("sonnet", ModelLimits.UNLIMITED, List.of())),
                    RetrySettings.DEFAULTS)),
            10, Duration.ofSeconds(1), null, Map.of());

    private TokenQuotas quotas(QuotaSettings settings) {
        return new TokenQuotas(settings, new LocalQuotaStore(this.clock), this.clock);
    }

    @Test
    void aModelsQuotaShowsWhatIsUsedAndItsLimitAndResetsAtTheEndOfItsWindow() {
        TokenQuotas quotas = quotas(
                new QuotaSettings(Map.of("anthropic", new ClientQuotas(new TokenQuota(null, 50_000L), TokenQuota.NONE,
                        Map.of("opus", new TokenQuota(1_000L, null)))), TokenQuota.NONE, Map.of()));
        new QuotaMetrics(this.registry, this.settings, quotas);
        assertThat(gauge("llm.quota.limit", "model", "opus", "day").value()).isEqualTo(1_000);
        assertThat(gauge("llm.quota.used", "model", "opus", "day").value()).isZero();
        quotas.reserve("anthropic", "opus", null, 600).settle(600);
        quotas.reserve("anthropic", "sonnet", null, 300).settle(300);
        assertThat(gauge("llm.quota.used", "model", "opus", "day").value()).isEqualTo(600);
        assertThat(gauge("llm.quota.used", "client", "all", "month").value()).isEqualTo(900);
        assertThat(gauge("llm.quota.limit", "client", "all", "month").value()).isEqualTo(50_000);
        // sonnet has no quota of its own
        assertThat(this.registry.find("llm.quota.used").tags("model", "sonnet").gauge()).isNull();
        this.clock.advance(Duration.ofHours(2));
        assertThat(gauge("llm.quota.used", "model", "opus", "day").value()).isZero();
        assertThat(gauge("llm.quota.used", "client", "all", "month").value()).isZero();
        assertThat(gauge("llm.quota.limit", "model", "opus", "day").value()).isEqualTo(1_000);
    }

    @Test
    void everyQuotaGaugeHasTheSameTags() {
        TokenQuotas quotas = quotas(new QuotaSettings(
                Map.of("anthropic",
                        new ClientQuotas(new TokenQuota(5_000L, null), TokenQuota.NONE,
                                Map.of("opus", new TokenQuota(1_000L, 10_000L)))),
                new TokenQuota(2_000L, null), Map.of("acme", new TokenQuota(3_000L, null))));
        new QuotaMetrics(this.registry, this.settings, quotas);
        List<Meter> meters = this.registry.getMeters();
        // opus: day and month; the client: day; acme: day; two gauges each
        assertThat(meters).hasSize(8);
        assertThat(meters).allSatisfy((meter) -> assertThat(meter.getId().getTags()).extracting("key")
            .containsExactlyInAnyOrder("client", "model", "tenant", "scope", "window"));
        assertThat(gauge("llm.quota.limit", "tenant", "all", "day").getId().getTag("tenant")).isEqualTo("acme");
    }

    @Test
    void aTenantSeenInACallGetsItsGaugesAndLosesThemOnceNoLongerTracked() {
        TokenQuotas quotas = quotas(new QuotaSettings(Map.of(), new TokenQuota(1_000L, null), Map.of()));
        QuotaMetrics metrics = new QuotaMetrics(this.registry, this.settings, quotas);
        assertThat(this.registry.getMeters()).isEmpty();
        quotas.reserve("anthropic", "opus", "tenant-0", 250).settle(250);
        metrics.onCall("anthropic", "opus", CallOutcome.SUCCESS, Duration.ZERO);
        assertThat(this.registry.get("llm.quota.used").tags("tenant", "tenant-0").gauge().value()).isEqualTo(250);
        // a hundred more tenants push the least recently seen out of the tracked ones
        for (int i = 1; i <= 100; i++) {
            quotas.reserve("anthropic", "opus", "tenant-" + i, 1);
        }
        metrics.onCall("anthropic", "opus", CallOutcome.SUCCESS, Duration.ZERO);
        assertThat(this.registry.find("llm.quota.used").tags("tenant", "tenant-0").gauge()).isNull();
        assertThat(this.registry.get("llm.quota.used").gauges()).hasSize(100);
        assertThat(this.registry.get("llm.quota.used").tags("tenant", "tenant-100").gauge().value()).isEqualTo(1);
    }

    @Test
    void aModelFirstSeenInACallGetsTheQuotaOfTheClientsOtherModels() {
        TokenQuotas quotas = quotas(new QuotaSettings(
                Map.of("anthropic", new ClientQuotas(TokenQuota.NONE, new TokenQuota(1_000L, null), Map.of())),
                TokenQuota.NONE, Map.of()));
        QuotaMetrics metrics = new QuotaMetrics(this.registry, this.settings, quotas);
        assertThat(this.registry.find("llm.quota.used").tags("model", "haiku").gauge()).isNull();
        quotas.reserve("anthropic", "haiku", null, 100);
        metrics.onCall("anthropic", "haiku", CallOutcome.SUCCESS, Duration.ZERO);
        metrics.onCall("anthropic", "haiku", CallOutcome.SUCCESS, Duration.ZERO);
        assertThat(this.registry.get("llm.quota.used").tags("model", "haiku").gauges()).hasSize(1);
        assertThat(this.registry.get("llm.quota.used").tags("model", "haiku").gauge().value()).isEqualTo(100);
        metrics.onModelForgotten("anthropic", "haiku");
        assertThat(this.registry.find("llm.quota.used").tags("model", "haiku").gauge()).isNull();
    }

    @Test
    void withoutQuotasThereIsNoGauge() {
        QuotaMetrics metrics = new QuotaMetrics(this.registry, this.settings, TokenQuotas.none());
        metrics.onCall("anthropic", "opus", CallOutcome.SUCCESS, Duration.ZERO);
        assertThat(this.registry.getMeters()).isEmpty();
    }

    private Gauge gauge(String name, String scope, String model, String window) {
        return this.registry.get(name).tags("scope", scope, "model", model, "window", window).gauge();
    }

}
