package io.github.llmthrottle.limit;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of {@link BurstCapacity}: the provider's burst, learned from remaining and reset.
 */
class BurstCapacityTests {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private final BurstCapacity burst = new BurstCapacity();

    @Test
    void aBucketOfTwentySecondsIsLearnedFromRemainingAndReset() {
        // 60,000 a minute = 1,000 a second; 5,000 left, full again in 15 s: 20,000
        this.burst.learn(Dimension.INPUT_TOKENS, 60_000L, 5_000L, NOW.plusSeconds(15), NOW);
        // a lower bound: 500 for the rounding of the remaining value, 1 s for the reset's
        assertThat(this.burst.of(Dimension.INPUT_TOKENS, 60_000L)).isEqualTo(4_500 + 14_000);
    }

    @Test
    void theLargestLowerBoundWins() {
        this.burst.learn(Dimension.REQUESTS, 600L, 100L, NOW.plusSeconds(5), NOW);
        this.burst.learn(Dimension.REQUESTS, 600L, 200L, NOW, NOW);
        this.burst.learn(Dimension.REQUESTS, 600L, 50L, NOW.plusSeconds(2), NOW);
        assertThat(this.burst.of(Dimension.REQUESTS, 600L)).isEqualTo(200);
    }

    @Test
    void aWholeMinuteIsNoCap() {
        // drained, full again in a minute: the provider holds its per-minute limit
        this.burst.learn(Dimension.INPUT_TOKENS, 60_000L, 0L, NOW.plusSeconds(60), NOW);
        assertThat(this.burst.of(Dimension.INPUT_TOKENS, 60_000L)).isNull();
        this.burst.learn(Dimension.REQUESTS, 50L, 50L, NOW, NOW);
        assertThat(this.burst.of(Dimension.REQUESTS, 50L)).isNull();
    }

    @Test
    void nothingIsLearnedWithoutReset() {
        this.burst.learn(Dimension.INPUT_TOKENS, 60_000L, 5_000L, null, NOW);
        assertThat(this.burst.of(Dimension.INPUT_TOKENS, 60_000L)).isNull();
    }

    @Test
    void forgetClearsWhatWasLearned() {
        this.burst.learn(Dimension.REQUESTS, 600L, 100L, NOW, NOW);
        this.burst.forget();
        assertThat(this.burst.of(Dimension.REQUESTS, 600L)).isNull();
    }

    @Test
    void aBucketSmallerThanOneSecondsRefillIsNotTaken() {
        // a gateway's remaining 1 with a reset of 0s: no provider holds 1 token of 60,000
        this.burst.learn(Dimension.INPUT_TOKENS, 60_000L, 1L, NOW, NOW);
        assertThat(this.burst.of(Dimension.INPUT_TOKENS, 60_000L)).isNull();
        // a reset read against a clock running ahead: in the past, the remaining alone
        this.burst.learn(Dimension.OUTPUT_TOKENS, 60_000L, 300L, NOW.minusSeconds(30), NOW);
        assertThat(this.burst.of(Dimension.OUTPUT_TOKENS, 60_000L)).isNull();
        // one request a second is how Anthropic says 60 a minute may be enforced
        this.burst.learn(Dimension.REQUESTS, 60L, 1L, NOW, NOW);
        assertThat(this.burst.of(Dimension.REQUESTS, 60L)).isEqualTo(1);
    }

    @Test
    void aBurstLearnedLongAgoGivesWayToWhatTheLatestResponseSays() {
        this.burst.learn(Dimension.INPUT_TOKENS, 60_000L, 5_000L, NOW.plusSeconds(15), NOW);
        Instant later = NOW.plusSeconds(BurstCapacity.AGE_MINUTES * 60 + 1);
        this.burst.learn(Dimension.INPUT_TOKENS, 60_000L, 2_500L, later.plusSeconds(4), later);
        // 2,500 is no rounded thousand: exact; full again in 4 s, 1 s less
        assertThat(this.burst.of(Dimension.INPUT_TOKENS, 60_000L)).isEqualTo(2_500 + 3_000);
        // within the age, the larger bound still wins
        this.burst.learn(Dimension.INPUT_TOKENS, 60_000L, 1_500L, later.plusSeconds(2), later.plusSeconds(1));
        assertThat(this.burst.of(Dimension.INPUT_TOKENS, 60_000L)).isEqualTo(5_500);
    }

}
