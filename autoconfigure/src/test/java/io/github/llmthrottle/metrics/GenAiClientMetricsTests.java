package io.github.llmthrottle.metrics;

import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.llmthrottle.client.ClientSettings;
import io.github.llmthrottle.client.ClientSettings.ModelSettings;
import io.github.llmthrottle.client.ThrottleSettings;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.provider.Usage;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenTelemetry GenAI client metrics on a {@link SimpleMeterRegistry}: names, units,
 * the conventions' bucket boundaries and attributes, the same tag keys for every meter of
 * a name.
 */
class GenAiClientMetricsTests {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private final GenAiClientMetrics metrics = new GenAiClientMetrics(this.registry, settings(), true);

    @Test
    void tokenUsageIsAHistogramOfInputAndOutputTokensWithTheConventionsBuckets() {
        this.metrics.onUsage("anthropic", "opus", new Usage(300, 20));
        this.metrics.onUsage("anthropic", "opus", new Usage(5000, 700));
        DistributionSummary input = this.registry.get("gen_ai.client.token.usage")
            .tags("gen_ai.operation.name", "chat", "gen_ai.provider.name", "anthropic", "gen_ai.request.model", "opus",
                    "gen_ai.token.type", "input")
            .summary();
        assertThat(input.count()).isEqualTo(2);
        assertThat(input.totalAmount()).isEqualTo(5300);
        assertThat(input.getId().getBaseUnit()).isNull();
        assertThat(Arrays.stream(input.takeSnapshot().histogramCounts()).mapToDouble(CountAtBucket::bucket))
            .containsExactly(1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0,
                    4194304.0, 16777216.0, 67108864.0);
        assertThat(bucket(input.takeSnapshot().histogramCounts(), 1024)).isEqualTo(1);
        assertThat(bucket(input.takeSnapshot().histogramCounts(), 16384)).isEqualTo(2);
        assertThat(this.registry.get("gen_ai.client.token.usage").tag("gen_ai.token.type", "output").summary().count())
            .isEqualTo(2);
    }

    @Test
    void operationDurationIsATimerInSecondsWithTheConventionsBucketsAndErrorTypeOnFailures() {
        this.metrics.onCallCompleted("openai", "gpt-4o-mini", Duration.ofMillis(700), null);
        this.metrics.onCallCompleted("openai", "gpt-4o-mini", Duration.ofSeconds(3),
                "io.github.llmthrottle.RetriesExhaustedException");
        Timer success = this.registry.get("gen_ai.client.operation.duration")
            .tags("gen_ai.provider.name", "openai", "gen_ai.request.model", "gpt-4o-mini", "error.type", "")
            .timer();
        assertThat(success.count()).isEqualTo(1);
        assertThat(Arrays.stream(success.takeSnapshot().histogramCounts())
            .mapToDouble((bucket) -> bucket.bucket(java.util.concurrent.TimeUnit.SECONDS)))
            .containsExactly(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92);
        Timer failure = this.registry.get("gen_ai.client.operation.duration")
            .tag("error.type", "io.github.llmthrottle.RetriesExhaustedException")
            .timer();
        assertThat(failure.totalTime(java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(3);
    }

    @Test
    void timeToFirstChunkIsATimerOfStreams() {
        this.metrics.onFirstChunk("anthropic", "opus", Duration.ofMillis(250));
        Timer ttfc = this.registry.get("gen_ai.client.operation.time_to_first_chunk")
            .tags("gen_ai.provider.name", "anthropic", "gen_ai.request.model", "opus")
            .timer();
        assertThat(ttfc.count()).isEqualTo(1);
        assertThat(ttfc.takeSnapshot().histogramCounts()).hasSize(14);
    }

    @Test
    void everyMeterOfANameHasTheSameTagKeys() {
        this.metrics.onUsage("anthropic", "sonnet", new Usage(1, 1));
        this.metrics.onCallCompleted("anthropic", "sonnet", Duration.ofSeconds(1), "429");
        this.metrics.onCallCompleted("generic", "llama", Duration.ofSeconds(1), null);
        this.metrics.onFirstChunk("openai", "gpt-4o-mini", Duration.ofSeconds(1));
        assertThat(tagKeys("gen_ai.client.token.usage")).containsExactly(
                Set.of("gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.request.model", "gen_ai.token.type"));
        assertThat(tagKeys("gen_ai.client.operation.duration")).containsExactly(
                Set.of("gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.request.model", "error.type"));
        assertThat(tagKeys("gen_ai.client.operation.time_to_first_chunk"))
            .containsExactly(Set.of("gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.request.model"));
        assertThat(this.registry.get("gen_ai.client.operation.duration")
            .tag("gen_ai.request.model", "llama")
            .timer()
            .getId()
            .getTag("gen_ai.provider.name")).isEqualTo("_OTHER");
    }

    @Test
    void configuredModelsHaveTheirMetersFromTheStart() {
        assertThat(this.registry.find("gen_ai.client.token.usage").tag("gen_ai.request.model", "opus").summaries())
            .hasSize(2);
        assertThat(this.registry.find("gen_ai.client.operation.duration")
            .tags("gen_ai.request.model", "gpt-4o-mini", "error.type", "")
            .timer()).isNotNull();
        assertThat(this.registry.find("gen_ai.client.operation.time_to_first_chunk")
            .tag("gen_ai.request.model", "opus")
            .timer()).isNotNull();
    }

    @Test
    void withoutTokenUsageTheNameIsLeftToSpringAi() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        GenAiClientMetrics metrics = new GenAiClientMetrics(registry, settings(), false);
        metrics.onUsage("anthropic", "opus", new Usage(10, 10));
        assertThat(metrics.isTokenUsagePublished()).isFalse();
        assertThat(registry.find("gen_ai.client.token.usage").meters()).isEmpty();
        assertThat(registry.find("gen_ai.client.operation.duration").meters()).isNotEmpty();
    }

    @Test
    void forgottenModelsLoseTheirMeters() {
        this.metrics.onCallCompleted("anthropic", "made-up", Duration.ofSeconds(1), null);
        assertThat(
                this.registry.find("gen_ai.client.operation.duration").tag("gen_ai.request.model", "made-up").meters())
            .hasSize(1);
        this.metrics.onModelForgotten("anthropic", "made-up");
        assertThat(
                this.registry.find("gen_ai.client.operation.duration").tag("gen_ai.request.model", "made-up").meters())
            .isEmpty();
        this.metrics.onCallCompleted("anthropic", "made-up", Duration.ofSeconds(1), null);
        assertThat(this.registry.get("gen_ai.client.operation.duration")
            .tag("gen_ai.request.model", "made-up")
            .timer()
            .count()).isEqualTo(1);
    }

    private Set<Set<String>> tagKeys(String name) {
        return this.registry.find(name)
            .meters()
            .stream()
            .map(Meter::getId)
            .map((id) -> id.getTags().stream().map(Tag::getKey).collect(Collectors.toSet()))
            .collect(Collectors.toSet());
    }

    private static double bucket(CountAtBucket[] buckets, double boundary) {
        return Arrays.stream(buckets).filter((bucket) -> bucket.bucket() == boundary).findFirst().orElseThrow().count();
    }

    private static ThrottleSettings settings() {
        return new ThrottleSettings(
                Map.of("anthropic", client("anthropic", ProviderDialect.ANTHROPIC, "opus"), "openai",
                        client("openai", ProviderDialect.OPENAI, "gpt-4o-mini"), "generic",
                        client("generic", ProviderDialect.GENERIC, "llama")),
                10, Duration.ofSeconds(30), null, Map.of());
    }

    private static ClientSettings client(String name, ProviderDialect dialect, String model) {
        return ClientSettings.defaults(name, dialect, URI.create("https://" + name + ".example"))
            .withModels(Map.of(model, new ModelSettings(model, ModelLimits.UNLIMITED, List.of())));
    }

}
