package io.github.llmthrottle.limit;

import java.time.Duration;
import java.util.Set;

import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TenantBucketsTests {

    private final FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z");

    private final LocalBucketStore store = new LocalBucketStore(this.clock);

    @Test
    void theLeastRecentlyUsedIdleTenantsBeyondTheBoundAreForgotten() {
        TenantBuckets tenants = new TenantBuckets(this.store, "anthropic:opus",
                (tenant) -> new TenantLimits(10L, null, null), 100, (tenant) -> false);
        for (int i = 0; i < 250; i++) {
            tenants.of("tenant-" + i);
        }
        assertThat(tenants.size()).isEqualTo(100);
        assertThat(this.store.size()).isEqualTo(100);
    }

    @Test
    void tenantsWithCallsWaitingAreNeverForgotten() {
        Set<String> waiting = Set.of("tenant-0", "tenant-1");
        TenantBuckets tenants = new TenantBuckets(this.store, "anthropic:opus",
                (tenant) -> new TenantLimits(10L, null, null), 2, waiting::contains);
        BucketSet first = tenants.of("tenant-0");
        tenants.of("tenant-1");
        tenants.of("tenant-2");
        assertThat(tenants.size()).isEqualTo(3);
        assertThat(tenants.of("tenant-0")).isSameAs(first);
    }

    @Test
    void aTenantCannotResetItsLimitsByCyclingThroughMoreTenantNamesThanTheBound() {
        TenantBuckets tenants = new TenantBuckets(this.store, "anthropic:opus",
                (tenant) -> new TenantLimits(10L, null, null), 2, (tenant) -> false);
        assertThat(tenants.of("tenant-0").get(Dimension.REQUESTS).tryConsume(10)).isTrue();
        for (int i = 1; i <= 5; i++) {
            tenants.of("tenant-" + i);
        }
        assertThat(tenants.of("tenant-0").get(Dimension.REQUESTS).tryConsume(1)).isFalse();
        // refilled: forgotten like any other once the bound is passed
        this.clock.advance(Duration.ofMinutes(1));
        tenants.of("tenant-6");
        tenants.of("tenant-7");
        assertThat(tenants.size()).isEqualTo(2);
        assertThat(this.store.size()).isEqualTo(2);
    }

}
