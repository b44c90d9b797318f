package io.github.llmthrottle.quota;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.TenantQuotaExceededException;
import io.github.llmthrottle.TokenQuotaExceededException;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.quota.QuotaSettings.ClientQuotas;
import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of {@link TokenQuotas} in memory, on a fake clock: daily and monthly budgets of a
 * model, a client and a tenant, exhausted and reset at the UTC boundary.
 */
public class TokenQuotasTests {

    /**
     * 22:00 UTC on the last day of a year: two hours before a new day, a new month and a
     * new year. A fixed instant, so that no test depends on the day it runs, far in the
     * future of a Redis server's own clock, which expires the counters a day after their
     * window (an instant in its past would expire them at once).
     */
    public static final Instant START = Instant.parse("2099-12-31T22:00:00Z");

    /** The next midnight UTC, where the day and the month of {@link #START} end. */
    public static final Instant MIDNIGHT = START.plus(Duration.ofHours(2));

    public final FakeClock clock = new FakeClock(START);

    protected QuotaStore store() {
        return new LocalQuotaStore(this.clock);
    }

    protected TokenQuotas quotas(QuotaSettings settings) {
        return new TokenQuotas(settings, store(), this.clock);
    }

    public static QuotaSettings modelQuota(TokenQuota quota) {
        return new QuotaSettings(
                Map.of("anthropic", new ClientQuotas(TokenQuota.NONE, TokenQuota.NONE, Map.of("opus", quota))),
                TokenQuota.NONE, Map.of());
    }

    public static QuotaSettings tenantQuota(TokenQuota defaults, Map<String, TokenQuota> overrides) {
        return new QuotaSettings(Map.of(), defaults, overrides);
    }

    @Test
    void aModelsDailyBudgetIsExhaustedAndResetsAtMidnightUtc() {
        TokenQuotas quotas = quotas(modelQuota(new TokenQuota(1_000L, null)));
        quotas.reserve("anthropic", "opus", null, 600).settle(600);
        quotas.reserve("anthropic", "opus", null, 400).settle(400);
        assertThatExceptionOfType(TokenQuotaExceededException.class)
            .isThrownBy(() -> quotas.reserve("anthropic", "opus", null, 1))
            .satisfies((ex) -> {
                assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofHours(2));
                assertThat(ex.getRejectionReason()).isEqualTo(RejectionReason.TOKEN_QUOTA);
                assertThat(ex.getClient()).isEqualTo("anthropic");
                assertThat(ex.getModel()).isEqualTo("opus");
                assertThat(ex.getMessage()).contains("model 'opus'", "1,000 tokens per day", MIDNIGHT.toString());
            });
        // another model of the client has no quota
        quotas.reserve("anthropic", "sonnet", null, 5_000);
        this.clock.advance(Duration.ofHours(2));
        quotas.reserve("anthropic", "opus", null, 1_000);
    }

    @Test
    void aTenantsDailyBudgetCountsEveryClientAndModel() {
        TokenQuotas quotas = quotas(tenantQuota(new TokenQuota(1_000L, null), Map.of()));
        quotas.reserve("anthropic", "opus", "acme", 700).settle(700);
        quotas.reserve("openai", "gpt", "acme", 300).settle(300);
        assertThatExceptionOfType(TenantQuotaExceededException.class)
            .isThrownBy(() -> quotas.reserve("anthropic", "sonnet", "acme", 10))
            .satisfies((ex) -> {
                assertThat(ex).isNotInstanceOf(TokenQuotaExceededException.class);
                assertThat(ex.getTenant()).isEqualTo("acme");
                assertThat(ex.getRejectionReason()).isEqualTo(RejectionReason.TENANT_QUOTA);
                assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofHours(2));
            });
        // other tenants, and calls without a tenant, have their own budget or none
        quotas.reserve("anthropic", "opus", "globex", 1_000);
        quotas.reserve("anthropic", "opus", null, 50_000);
        this.clock.advance(Duration.ofHours(2));
        quotas.reserve("anthropic", "opus", "acme", 1_000);
    }

    @Test
    void aTenantOverrideReplacesTheDefault() {
        TokenQuotas quotas = quotas(tenantQuota(new TokenQuota(1_000L, null),
                Map.of("acme", new TokenQuota(1_000L, null).overriddenBy(new TokenQuota(5_000L, null)))));
        quotas.reserve("anthropic", "opus", "acme", 5_000);
        assertThatExceptionOfType(TenantQuotaExceededException.class)
            .isThrownBy(() -> quotas.reserve("anthropic", "opus", "other", 1_001));
    }

    @Test
    void aMonthlyBudgetResetsOnTheFirstOfTheMonth() {
        TokenQuotas quotas = quotas(modelQuota(new TokenQuota(null, 10_000L)));
        quotas.reserve("anthropic", "opus", null, 10_000);
        assertThatExceptionOfType(TokenQuotaExceededException.class)
            .isThrownBy(() -> quotas.reserve("anthropic", "opus", null, 1))
            .satisfies((ex) -> assertThat(ex.getMessage()).contains("10,000 tokens per month"));
        // the next day is the first of a new month
        this.clock.advance(Duration.ofHours(2));
        quotas.reserve("anthropic", "opus", null, 10_000);
    }

    @Test
    void aClientsBudgetCountsAllItsModels() {
        TokenQuotas quotas = quotas(new QuotaSettings(
                Map.of("anthropic", new ClientQuotas(new TokenQuota(1_000L, null), TokenQuota.NONE, Map.of())),
                TokenQuota.NONE, Map.of()));
        quotas.reserve("anthropic", "opus", null, 500);
        quotas.reserve("anthropic", "sonnet", null, 500);
        assertThatExceptionOfType(TokenQuotaExceededException.class)
            .isThrownBy(() -> quotas.reserve("anthropic", "haiku", null, 1))
            .satisfies((ex) -> assertThat(ex.getMessage()).contains("client 'anthropic'"));
    }

    @Test
    void aReservationIsSettledToTheTokensUsed() {
        TokenQuotas quotas = quotas(modelQuota(new TokenQuota(1_000L, null)));
        QuotaReservation reservation = quotas.reserve("anthropic", "opus", null, 900);
        assertThatExceptionOfType(TokenQuotaExceededException.class)
            .isThrownBy(() -> quotas.reserve("anthropic", "opus", null, 200));
        reservation.settle(300);
        corrected();
        quotas.reserve("anthropic", "opus", null, 700);
        assertThat(remaining(quotas)).isZero();
    }

    @Test
    void aQuotaThatWouldGoOverTakesNothingFromTheOthers() {
        TokenQuotas quotas = quotas(
                new QuotaSettings(Map.of("anthropic", new ClientQuotas(new TokenQuota(10_000L, null), TokenQuota.NONE,
                        Map.of("opus", new TokenQuota(1_000L, null)))), TokenQuota.NONE, Map.of()));
        assertThatExceptionOfType(TokenQuotaExceededException.class)
            .isThrownBy(() -> quotas.reserve("anthropic", "opus", null, 2_000));
        quotas.reserve("anthropic", "sonnet", null, 10_000);
    }

    @Test
    void aPermitSettlesTheQuotaWithTheUsageAndARefusedAttemptCountsNothing() {
        TokenQuotas quotas = quotas(modelQuota(new TokenQuota(1_000L, null)));
        RecordingPermit permit = new RecordingPermit();
        Permit counted = quotas.reserve("anthropic", "opus", null, 600).around(permit);
        counted.settle(100, 50);
        counted.release(Permit.Outcome.SUCCESS);
        assertThat(permit.released).isEqualTo(Permit.Outcome.SUCCESS);
        assertThat(remaining(quotas)).isEqualTo(850);
        Permit refused = quotas.reserve("anthropic", "opus", null, 600).around(new RecordingPermit());
        refused.settle(600, 0);
        refused.release(Permit.Outcome.DROPPED);
        assertThat(remaining(quotas)).isEqualTo(850);
        Permit neverSettled = quotas.reserve("anthropic", "opus", null, 600).around(new RecordingPermit());
        neverSettled.release(Permit.Outcome.IGNORED);
        assertThat(remaining(quotas)).isEqualTo(850);
        Permit noUsage = quotas.reserve("anthropic", "opus", null, 600).around(new RecordingPermit());
        noUsage.release(Permit.Outcome.SUCCESS);
        assertThat(remaining(quotas)).isEqualTo(250);
    }

    @Test
    void anAnsweredAttemptCountsItsUsageOrItsEstimateWhateverFollows() {
        TokenQuotas quotas = quotas(modelQuota(new TokenQuota(1_000L, null)));
        // a stream that ends with an error event after its usage
        QuotaReservation streamed = quotas.reserve("anthropic", "opus", null, 600);
        Permit errorEvent = streamed.around(new RecordingPermit());
        streamed.answered();
        errorEvent.settle(100, 50);
        errorEvent.release(Permit.Outcome.DROPPED);
        assertThat(remaining(quotas)).isEqualTo(850);
        // one that breaks before any usage came: billed at its estimate
        QuotaReservation broken = quotas.reserve("anthropic", "opus", null, 300);
        Permit noUsage = broken.around(new RecordingPermit());
        broken.answered();
        noUsage.release(Permit.Outcome.IGNORED);
        assertThat(remaining(quotas)).isEqualTo(550);
    }

    @Test
    void usageFarAboveTheEstimateCountsAsTheEstimateWithoutAnyPerMinuteLimit() {
        TokenQuotas quotas = quotas(modelQuota(new TokenQuota(1_000_000L, 30_000_000L)));
        quotas.reserve("anthropic", "opus", null, 1_000).settle(1_000_000_000_000L);
        assertThat(remaining(quotas)).isEqualTo(999_000);
        // more than estimated, but plausibly: counted
        quotas.reserve("anthropic", "opus", null, 1_000).settle(5_000);
        assertThat(remaining(quotas)).isEqualTo(994_000);
    }

    @Test
    void theStatesSayWhatIsLeftAndWhenItResets() {
        TokenQuotas quotas = quotas(modelQuota(new TokenQuota(1_000L, 20_000L)));
        quotas.reserve("anthropic", "opus", null, 400);
        List<TokenQuotas.QuotaState> states = quotas.states(Map.of("anthropic", List.of("opus")));
        assertThat(states).hasSize(2);
        assertThat(states.get(0).window()).isEqualTo(QuotaWindow.DAY);
        assertThat(states.get(0).remaining()).isEqualTo(600);
        assertThat(states.get(0).resetsAt()).isEqualTo(MIDNIGHT);
        assertThat(states.get(1).window()).isEqualTo(QuotaWindow.MONTH);
        assertThat(states.get(1).remaining()).isEqualTo(19_600);
    }

    @Test
    void aQuotaIsExhaustedWhenNothingIsLeftOrItRefusedTheLastCallThatAskedIt() {
        TokenQuotas quotas = quotas(modelQuota(new TokenQuota(1_000L, null)));
        quotas.reserve("anthropic", "opus", null, 700);
        assertThat(quotas.statesOfModel("anthropic", "opus").get(0).exhausted()).isFalse();
        // 300 left, but not enough for this call: calls like it fail until midnight
        assertThatExceptionOfType(TokenQuotaExceededException.class)
            .isThrownBy(() -> quotas.reserve("anthropic", "opus", null, 500));
        assertThat(quotas.statesOfModel("anthropic", "opus").get(0)).satisfies((state) -> {
            assertThat(state.remaining()).isEqualTo(300);
            assertThat(state.exhausted()).isTrue();
        });
        // a smaller call fits: no longer exhausted, until nothing is left
        quotas.reserve("anthropic", "opus", null, 100);
        assertThat(quotas.statesOfModel("anthropic", "opus").get(0).exhausted()).isFalse();
        quotas.reserve("anthropic", "opus", null, 200);
        assertThat(quotas.statesOfModel("anthropic", "opus").get(0).exhausted()).isTrue();
        this.clock.advance(Duration.ofHours(2));
        assertThat(quotas.statesOfModel("anthropic", "opus").get(0).exhausted()).isFalse();
    }

    @Test
    void aRefusalIsForgottenWhenItsWindowEnds() {
        TokenQuotas quotas = quotas(tenantQuota(new TokenQuota(1_000L, null), Map.of()));
        assertThatExceptionOfType(TenantQuotaExceededException.class)
            .isThrownBy(() -> quotas.reserve("anthropic", "opus", "acme", 1_001));
        assertThat(quotas.statesOfTenant("acme").get(0).exhausted()).isTrue();
        assertThat(quotas.statesOfTenant("globex").get(0).exhausted()).isFalse();
        this.clock.advance(Duration.ofHours(2));
        assertThat(quotas.statesOfTenant("acme").get(0).exhausted()).isFalse();
    }

    @Test
    void theTenantsVersionChangesOnlyWhenATenantStartsBeingTracked() {
        TokenQuotas quotas = quotas(tenantQuota(new TokenQuota(1_000L, null), Map.of()));
        long version = quotas.tenantsVersion();
        quotas.reserve("anthropic", "opus", "acme", 1);
        assertThat(quotas.tenantsVersion()).isNotEqualTo(version);
        version = quotas.tenantsVersion();
        quotas.reserve("anthropic", "opus", "acme", 1);
        quotas.reserve("anthropic", "opus", null, 1);
        assertThat(quotas.tenantsVersion()).isEqualTo(version);
        assertThat(quotas.tenants()).containsExactly("acme");
    }

    @Test
    void forgottenTenantsLeaveNoCountersBehindAndCannotResetTheirQuotaByCyclingNames() {
        LocalQuotaStore store = new LocalQuotaStore(this.clock);
        TokenQuotas quotas = new TokenQuotas(tenantQuota(new TokenQuota(1_000L, 30_000L), Map.of()), store, this.clock,
                2);
        quotas.reserve("anthropic", "opus", "acme", 900);
        for (int i = 0; i < 500; i++) {
            quotas.reserve("anthropic", "opus", "tenant-" + i, 10).settle(10);
        }
        assertThat(store.size()).isLessThanOrEqualTo(2 * 3);
        assertThatExceptionOfType(TenantQuotaExceededException.class)
            .isThrownBy(() -> quotas.reserve("anthropic", "opus", "acme", 200));
        assertThat(quotas.statesOfTenant("acme").get(0).used()).isGreaterThanOrEqualTo(900);
        quotas.reserve("anthropic", "opus", "acme", 100);
    }

    @Test
    void withoutQuotasNothingIsCounted() {
        TokenQuotas quotas = TokenQuotas.none();
        assertThat(quotas.isEmpty()).isTrue();
        quotas.reserve("anthropic", "opus", "acme", Long.MAX_VALUE / 2).settle(1);
    }

    /** Waits until the corrections made so far have reached the store. */
    protected void corrected() {
    }

    protected long remaining(TokenQuotas quotas) {
        return quotas.states(Map.of("anthropic", List.of("opus"))).get(0).remaining();
    }

    static final class RecordingPermit implements Permit {

        Permit.Outcome released;

        @Override
        public void settle(long inputTokens, long outputTokens) {
        }

        @Override
        public void settle(long inputTokens, long outputTokens, RateLimitSnapshot settledHeaders) {
        }

        @Override
        public void release(Outcome outcome) {
            this.released = outcome;
        }

    }

}
