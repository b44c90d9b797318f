package io.github.llmthrottle.limit;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class TenantLimitsTests {

    @Test
    void overrideReplacesTheDefaultFieldByField() {
        var resolver = TenantLimits.resolver(new TenantLimits(600L, 200_000L, 40_000L),
                Map.of("acme", new TenantLimits(null, 500_000L, null)));
        assertThat(resolver.apply("acme")).isEqualTo(new TenantLimits(600L, 500_000L, 40_000L));
        assertThat(resolver.apply("other")).isEqualTo(new TenantLimits(600L, 200_000L, 40_000L));
    }

    @Test
    void withoutDefaultOnlyOverriddenTenantsHaveLimits() {
        var resolver = TenantLimits.resolver(null, Map.of("acme", new TenantLimits(1L, null, null)));
        assertThat(resolver.apply("acme")).isEqualTo(new TenantLimits(1L, null, null));
        assertThat(resolver.apply("other")).isNull();
    }

    @Test
    void limitsMustBePositive() {
        assertThatIllegalArgumentException().isThrownBy(() -> new TenantLimits(0L, null, null))
            .withMessageContaining("requestsPerMinute");
        assertThatIllegalArgumentException().isThrownBy(() -> new ModelLimits(null, null, null, -1))
            .withMessageContaining("maxConcurrency");
    }

}
