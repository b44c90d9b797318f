package io.github.llmthrottle.limit;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.store.BucketKeys;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

/**
 * Weighted fair share between tenants in the {@link AdmissionQueue}: the order in which
 * waiting calls are admitted, on a fake clock.
 */
class TenantFairShareTests {

    private final FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z");

    private final ReentrantLock lock = new ReentrantLock();

    private AdmissionQueue queue(TenantWeights weights) {
        BucketSet buckets = new BucketSet(new LocalBucketStore(this.clock), BucketKeys.model("anthropic", "opus"));
        buckets.limit(Dimension.INPUT_TOKENS, 60_000L);
        return new AdmissionQueue(1000, new TenantFairShare(weights, buckets));
    }

    private static TenantWeights weights(String... tenantsAndWeights) {
        Map<String, BigDecimal> weights = new HashMap<>();
        for (int i = 0; i < tenantsAndWeights.length; i += 2) {
            weights.put(tenantsAndWeights[i], new BigDecimal(tenantsAndWeights[i + 1]));
        }
        return new TenantWeights(weights);
    }

    private void add(AdmissionQueue queue, String tenant, long tokens, long arrival) {
        queue.add(new AdmissionRequest(Priority.NORMAL, tenant, tokens, 0, null), null, Duration.ofMinutes(5), arrival,
                arrival + Duration.ofMinutes(5).toNanos(), this.lock.newCondition(), null);
    }

    /** The share of the tokens of the first {@code admitted} tokens in queue order. */
    private static Map<String, Double> tokenShares(AdmissionQueue queue, long admitted) {
        Map<String, Long> tokens = new HashMap<>();
        long total = 0;
        for (AdmissionQueue.Waiter waiter : queue) {
            if (total >= admitted) {
                break;
            }
            tokens.merge(waiter.request.tenant(), waiter.request.inputTokens(), Long::sum);
            total += waiter.request.inputTokens();
        }
        long sum = total;
        Map<String, Double> shares = new HashMap<>();
        tokens.forEach((tenant, count) -> shares.put(tenant, 100.0 * count / sum));
        return shares;
    }

    @Test
    void tenantsWeightedThreeToOneShareAdmittedTokensSeventyFiveToTwentyFive() {
        AdmissionQueue queue = queue(weights("gold", "3"));
        // gold sends calls twice the size of bronze's, both far more than the model takes
        long now = this.clock.nanoTime();
        for (int i = 0; i < 200; i++) {
            add(queue, "gold", 2_000, now + i);
            add(queue, "bronze", 1_000, now + i);
        }
        Map<String, Double> shares = tokenShares(queue, 200_000);
        assertThat(shares.get("gold")).isCloseTo(75.0, within(3.0));
        assertThat(shares.get("bronze")).isCloseTo(25.0, within(3.0));
    }

    @Test
    void decimalWeightsCountToo() {
        AdmissionQueue queue = queue(weights("a", "1.5", "b", "0.5"));
        long now = this.clock.nanoTime();
        for (int i = 0; i < 100; i++) {
            add(queue, "a", 1_000, now);
            add(queue, "b", 1_000, now);
        }
        assertThat(tokenShares(queue, 80_000).get("a")).isCloseTo(75.0, within(3.0));
    }

    @Test
    void aTenantAloneKeepsArrivalOrder() {
        AdmissionQueue queue = queue(weights("gold", "3"));
        long now = this.clock.nanoTime();
        for (int i = 0; i < 5; i++) {
            add(queue, "bronze", 1_000 * (5 - i), now + i);
        }
        List<Long> order = new ArrayList<>();
        queue.forEach((waiter) -> order.add(waiter.request.inputTokens()));
        assertThat(order).containsExactly(5_000L, 4_000L, 3_000L, 2_000L, 1_000L);
    }

    @Test
    void withoutWeightsCallsKeepArrivalOrderWhateverTheirTenant() {
        AdmissionQueue queue = queue(TenantWeights.NONE);
        long now = this.clock.nanoTime();
        for (int i = 0; i < 3; i++) {
            add(queue, "gold", 1_000, now + 2 * i);
            add(queue, "bronze", 1_000, now + 2 * i + 1);
        }
        List<String> order = new ArrayList<>();
        queue.forEach((waiter) -> order.add(waiter.request.tenant()));
        assertThat(order).containsExactly("gold", "bronze", "gold", "bronze", "gold", "bronze");
    }

    @Test
    void aPriorityStillGoesAheadOfATenantsBacklog() {
        AdmissionQueue queue = queue(weights("gold", "3"));
        long now = this.clock.nanoTime();
        for (int i = 0; i < 50; i++) {
            add(queue, "gold", 1_000, now);
        }
        queue.add(new AdmissionRequest(Priority.REALTIME, "bronze", 1_000, 0, null), null, Duration.ofMinutes(5), now,
                now + Duration.ofMinutes(5).toNanos(), this.lock.newCondition(), null);
        assertThat(queue.head().request.tenant()).isEqualTo("bronze");
    }

    @Test
    void aWeightMustBePositive() {
        assertThatIllegalArgumentException().isThrownBy(() -> weights("gold", "0"))
            .withMessage("The weight of tenant 'gold' must be positive, was 0");
    }

}
