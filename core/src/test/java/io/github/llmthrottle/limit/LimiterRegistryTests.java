package io.github.llmthrottle.limit;

import java.time.Duration;
import java.util.Map;

import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class LimiterRegistryTests {

    private final FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z");

    private final LimiterRegistry registry = new LimiterRegistry(
            Map.of("anthropic",
                    new ClientLimits(new ModelLimits(50L, null, null, null),
                            Map.of("opus", new ModelLimits(10L, 30_000L, 8_000L, 4)))),
            100, Duration.ofSeconds(30), (tenant) -> null, new LocalBucketStore(this.clock), this.clock);

    @Test
    void listedModelsHaveALimiterFromTheStart() {
        assertThat(this.registry.find("anthropic", "opus")).isNotNull();
        assertThat(this.registry.states().get("anthropic")).containsOnlyKeys("opus");
        assertThat(this.registry.limiter("anthropic", "opus").limits().maxConcurrency()).isEqualTo(4);
    }

    @Test
    void otherModelsGetALimiterWithTheClientsDefaultLimitsOnFirstUse() {
        assertThat(this.registry.find("anthropic", "haiku")).isNull();
        ModelLimiter haiku = this.registry.limiter("anthropic", "haiku");
        assertThat(haiku.limits()).isEqualTo(new ModelLimits(50L, null, null, null));
        assertThat(this.registry.limiter("anthropic", "haiku")).isSameAs(haiku);
        assertThat(this.registry.states().get("anthropic")).containsKeys("opus", "haiku");
    }

    @Test
    void unknownClientIsRejected() {
        assertThatIllegalArgumentException().isThrownBy(() -> this.registry.limiter("openai", "gpt"))
            .withMessageContaining("openai");
    }

}
