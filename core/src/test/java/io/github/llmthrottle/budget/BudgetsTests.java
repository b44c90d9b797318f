package io.github.llmthrottle.budget;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.llmthrottle.BudgetExceededException;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.budget.BudgetSettings.ClientBudgets;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.quota.LocalQuotaStore;
import io.github.llmthrottle.quota.QuotaStore;
import io.github.llmthrottle.quota.QuotaWindow;
import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of {@link Budgets} in memory, on a fake clock: the cost of calls from their
 * prices, budgets of a model, a client and a tenant reserved from the estimate, settled
 * from the usage and reset at the UTC boundary.
 */
public class BudgetsTests {

    /** Two hours before a new day, month and year, far in any Redis server's future. */
    public static final Instant START = Instant.parse("2099-12-31T22:00:00Z");

    /**
     * $3 per million input tokens, $15 per million output, cache writes $3.75, reads
     * $0.30.
     */
    public static final ModelPrice SONNET = new ModelPrice(new BigDecimal("3"), new BigDecimal("15"),
            new BigDecimal("3.75"), new BigDecimal("0.30"));

    public final FakeClock clock = new FakeClock(START);

    protected QuotaStore store() {
        return new LocalQuotaStore(this.clock);
    }

    /** Waits until the corrections of settled reservations have reached the store. */
    protected void corrected() {
    }

    protected Budgets budgets(BudgetSettings settings) {
        return new Budgets(settings, store(), this.clock, 100);
    }

    public static BudgetSettings modelBudget(Budget budget) {
        return new BudgetSettings("USD", 0.9, Map.of("anthropic",
                new ClientBudgets(Budget.NONE, Budget.NONE, Map.of("sonnet", budget), Map.of("sonnet", SONNET))),
                Budget.NONE, Map.of());
    }

    private static Budget perDay(String amount) {
        return new Budget(new BigDecimal(amount), null);
    }

    @Test
    void aCallCostsItsTokensAtTheirPricesCacheReadsAndWritesApart() {
        // 1,000 uncached input, 2,000 written, 10,000 read, 500 output
        Usage usage = Usage.ofCachedPrompt(1_000, 2_000, 10_000, 500);
        // 1000*3 + 2000*3.75 + 10000*0.30 + 500*15 = 3000 + 7500 + 3000 + 7500 millionths
        assertThat(SONNET.cost(usage)).isEqualByComparingTo("0.021");
        assertThat(SONNET.costMicros(usage)).isEqualTo(21_000);
        assertThat(SONNET.estimateMicros(1_000, 1_000)).isEqualTo(18_000);
    }

    @Test
    void aFractionOfAMillionthIsRoundedUpInBudgetsButKeptInTheCost() {
        ModelPrice cheap = new ModelPrice(new BigDecimal("0.075"), new BigDecimal("0.30"));
        assertThat(cheap.cost(new Usage(3, 0))).isEqualByComparingTo("0.000000225");
        assertThat(cheap.costMicros(new Usage(3, 0))).isEqualTo(1);
    }

    @Test
    void aNegativePriceIsRefused() {
        assertThatExceptionOfType(IllegalArgumentException.class)
            .isThrownBy(() -> new ModelPrice(new BigDecimal("-1"), BigDecimal.ONE))
            .withMessageContaining("input");
    }

    @Test
    void aCallWhoseEstimateNoLongerFitsFailsUntilTheWindowResets() {
        Budgets budgets = budgets(modelBudget(perDay("0.05")));
        // estimate: 1000 in at $3 + 1000 out at $15 = $0.018; settled at $0.0105. A
        // correction is sent without waiting and may reach a shared store after the next
        // reservation: each is awaited, so that the third call sees $0.021, not $0.036.
        for (int i = 0; i < 3; i++) {
            budgets.reserve("anthropic", "sonnet", null, 1_000, 1_000).settle(new Usage(1_000, 500));
            corrected();
        }
        // $0.0315 spent: $0.0185 left, an estimate of $0.018 fits, $0.0195 does not
        assertThatExceptionOfType(BudgetExceededException.class)
            .isThrownBy(() -> budgets.reserve("anthropic", "sonnet", null, 1_500, 1_000))
            .satisfies((ex) -> {
                assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofHours(2));
                assertThat(ex.getRejectionReason()).isEqualTo(RejectionReason.BUDGET);
                assertThat(ex.getClient()).isEqualTo("anthropic");
                assertThat(ex.getMessage()).contains("0.05 USD per day", "0.0185 left");
            });
        budgets.reserve("anthropic", "sonnet", null, 1_000, 1_000).cancel();
        this.clock.advance(Duration.ofHours(2));
        budgets.reserve("anthropic", "sonnet", null, 1_000, 1_000).settle(new Usage(1_000, 500));
        corrected();
        assertThat(budgets.states(Map.of("anthropic", List.of("sonnet")))).singleElement().satisfies((state) -> {
            assertThat(state.spent()).isEqualByComparingTo("0.0105");
            assertThat(state.remaining()).isEqualByComparingTo("0.0395");
            assertThat(state.resetsAt()).isEqualTo(Instant.parse("2100-01-02T00:00:00Z"));
        });
    }

    @Test
    void aModelWithoutPriceIsNeverCounted() {
        Budgets budgets = budgets(modelBudget(perDay("0.000001")));
        for (int i = 0; i < 10; i++) {
            budgets.reserve("anthropic", "opus", null, 100_000, 100_000).settle(new Usage(100_000, 100_000));
        }
        assertThat(budgets.cost("anthropic", "opus", new Usage(1, 1))).isNull();
    }

    @Test
    void aRefusedAttemptGivesItsEstimateBackAndAnAnsweredOneKeepsIt() {
        Budgets budgets = budgets(modelBudget(perDay("1")));
        Permit refused = budgets.reserve("anthropic", "sonnet", null, 1_000, 1_000).around(new NoPermit());
        assertThat(spent(budgets)).isEqualByComparingTo("0.018");
        refused.release(Permit.Outcome.DROPPED);
        assertThat(spent(budgets)).isEqualByComparingTo("0");
        BudgetReservation answered = budgets.reserve("anthropic", "sonnet", null, 1_000, 1_000);
        Permit permit = answered.around(new NoPermit());
        answered.answered();
        permit.release(Permit.Outcome.DROPPED);
        assertThat(spent(budgets)).isEqualByComparingTo("0.018");
    }

    @Test
    void aTenantAClientAndAMonthAreCountedTogetherAllOrNothing() {
        BudgetSettings settings = new BudgetSettings("EUR", 0.9,
                Map.of("anthropic", new ClientBudgets(new Budget(null, new BigDecimal("1")), Budget.NONE, Map.of(),
                        Map.of("sonnet", SONNET))),
                Budget.NONE, Map.of("acme", perDay("0.02")));
        Budgets budgets = budgets(settings);
        budgets.reserve("anthropic", "sonnet", "acme", 1_000, 1_000);
        assertThatExceptionOfType(BudgetExceededException.class)
            .isThrownBy(() -> budgets.reserve("anthropic", "sonnet", "acme", 1_000, 1_000))
            .withMessageContaining("tenant 'acme'")
            .satisfies((ex) -> assertThat(ex.getTenant()).isEqualTo("acme"));
        // the tenant's refusal took nothing from the client's month
        corrected();
        assertThat(budgets.states(Map.of("anthropic", List.of("sonnet"))))
            .filteredOn((state) -> state.scope().equals("client"))
            .singleElement()
            .satisfies((state) -> {
                assertThat(state.window()).isEqualTo(QuotaWindow.MONTH);
                assertThat(state.spent()).isEqualByComparingTo("0.018");
                assertThat(state.currency()).isEqualTo("EUR");
            });
        budgets.reserve("anthropic", "sonnet", "other", 1_000, 1_000);
    }

    @Test
    void aBudgetMoreThanTheWarningShareSpentIsNearlySpent() {
        Budgets budgets = budgets(modelBudget(perDay("0.1")));
        budgets.reserve("anthropic", "sonnet", null, 0, 0).settle(new Usage(10_000, 3_000));
        // $0.075 of $0.1
        corrected();
        assertThat(budgets.isNearlySpent("anthropic", "sonnet", null)).isFalse();
        budgets.reserve("anthropic", "sonnet", null, 0, 0).settle(new Usage(0, 1_000));
        // $0.09: not more than 90 %
        corrected();
        assertThat(budgets.isNearlySpent("anthropic", "sonnet", null)).isFalse();
        budgets.reserve("anthropic", "sonnet", null, 0, 0).settle(new Usage(1, 0));
        corrected();
        assertThat(budgets.isNearlySpent("anthropic", "sonnet", null)).isTrue();
        assertThat(budgets.isNearlySpent("anthropic", "opus", null)).isFalse();
    }

    @Test
    void concurrentCallersNeverReserveMoreThanTheBudget() throws Exception {
        Budgets budgets = budgets(modelBudget(perDay("1")));
        int threads = 16;
        AtomicInteger admitted = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(executor.submit(() -> {
                    start.await();
                    for (int i = 0; i < 100; i++) {
                        try {
                            // $0.018 each: 55 fit in $1
                            budgets.reserve("anthropic", "sonnet", null, 1_000, 1_000).settle(new Usage(1_000, 1_000));
                            admitted.incrementAndGet();
                        }
                        catch (BudgetExceededException ex) {
                            // expected once the budget is spent
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : futures) {
                future.get(30, TimeUnit.SECONDS);
            }
        }
        finally {
            executor.shutdownNow();
        }
        assertThat(admitted.get()).isEqualTo(55);
        assertThat(spent(budgets)).isEqualByComparingTo("0.99");
    }

    private BigDecimal spent(Budgets budgets) {
        corrected();
        return budgets.states(Map.of("anthropic", List.of("sonnet"))).get(0).spent();
    }

    private static final class NoPermit implements Permit {

        @Override
        public void settle(long inputTokens, long outputTokens) {
        }

        @Override
        public void settle(long inputTokens, long outputTokens,
                io.github.llmthrottle.provider.@org.jspecify.annotations.Nullable RateLimitSnapshot settledHeaders) {
        }

        @Override
        public void release(Outcome outcome) {
        }

    }

}
