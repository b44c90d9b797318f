package io.github.llmthrottle.limit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of {@link AdaptiveConcurrency}: every model has an AIMD limit, with or without
 * {@code max-concurrency}.
 */
class AdaptiveConcurrencyTests {

    @Test
    void withoutMaxConcurrencyTheLimitStartsAtTheInitialValue() {
        AdaptiveConcurrency concurrency = new AdaptiveConcurrency(null);
        assertThat(concurrency.limit()).isEqualTo(ConcurrencyLimits.DEFAULT_INITIAL);
        assertThat(concurrency.ceiling()).isEqualTo(ConcurrencyLimits.DEFAULT_MAX);
    }

    @Test
    void theLimitHoldsCallsBeyondIt() {
        AdaptiveConcurrency concurrency = new AdaptiveConcurrency(null, new ConcurrencyLimits(2, 10));
        concurrency.admit();
        assertThat(concurrency.isFull()).isFalse();
        concurrency.admit();
        assertThat(concurrency.isFull()).isTrue();
    }

    @Test
    void successesWhileBusyGrowTheLimitUpToTheDefaultCeiling() {
        AdaptiveConcurrency concurrency = new AdaptiveConcurrency(null, new ConcurrencyLimits(4, 6));
        for (int i = 0; i < 10; i++) {
            int inFlight = concurrency.admit();
            concurrency.release(0, 1_000_000, Math.max(inFlight, concurrency.limit()), Permit.Outcome.SUCCESS);
        }
        assertThat(concurrency.limit()).isEqualTo(6);
    }

    @Test
    void successesWhileIdleLeaveTheLimit() {
        AdaptiveConcurrency concurrency = new AdaptiveConcurrency(null, new ConcurrencyLimits(10, 100));
        for (int i = 0; i < 10; i++) {
            int inFlight = concurrency.admit();
            concurrency.release(0, 1_000_000, inFlight, Permit.Outcome.SUCCESS);
        }
        assertThat(concurrency.limit()).isEqualTo(10);
    }

    @Test
    void rateLimitsShrinkTheLimit() {
        AdaptiveConcurrency concurrency = new AdaptiveConcurrency(null, new ConcurrencyLimits(20, 1000));
        int inFlight = concurrency.admit();
        concurrency.release(0, 1_000_000, inFlight, Permit.Outcome.DROPPED);
        assertThat(concurrency.limit()).isEqualTo(18);
    }

    @Test
    void maxConcurrencyIsTheCeilingAndTheInitialValueIsLoweredToIt() {
        AdaptiveConcurrency concurrency = new AdaptiveConcurrency(8, ConcurrencyLimits.DEFAULTS);
        assertThat(concurrency.limit()).isEqualTo(8);
        assertThat(concurrency.ceiling()).isEqualTo(8);
    }

    @Test
    void removingMaxConcurrencyKeepsTheLimitAndRestoresTheDefaultCeiling() {
        AdaptiveConcurrency concurrency = new AdaptiveConcurrency(8, ConcurrencyLimits.DEFAULTS);
        concurrency.resize(null);
        assertThat(concurrency.limit()).isEqualTo(8);
        assertThat(concurrency.ceiling()).isEqualTo(ConcurrencyLimits.DEFAULT_MAX);
        concurrency.resize(4);
        assertThat(concurrency.limit()).isEqualTo(4);
    }

}
