package io.github.llmthrottle.limit;

import java.util.Set;

import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TenantBucketsTests {

    private final LocalBucketStore store = new LocalBucketStore(FakeClock.at("2026-01-01T00:00:00Z"));

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

}
