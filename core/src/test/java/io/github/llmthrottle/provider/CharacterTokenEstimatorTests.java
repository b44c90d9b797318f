package io.github.llmthrottle.provider;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CharacterTokenEstimatorTests {

    private final CharacterTokenEstimator estimator = new CharacterTokenEstimator();

    @Test
    void estimateStartsAtFourCharactersPerTokenPlusOverhead() {
        LlmRequest request = new LlmRequest("m", 100L, false, false, 4000, 4100);
        assertThat(this.estimator.estimateInputTokens("m", request)).isEqualTo(1008);
    }

    @Test
    void observedUsageCorrectsTheRatioOfThatModelOnly() {
        LlmRequest request = new LlmRequest("m", 100L, false, false, 4000, 4100);
        for (int i = 0; i < 30; i++) {
            this.estimator.observe("m", request, 2008);
        }
        assertThat(this.estimator.ratio("m")).isCloseTo(2.0, org.assertj.core.data.Offset.offset(0.05));
        assertThat(this.estimator.estimateInputTokens("m", request)).isBetween(1950L, 2100L);
        assertThat(this.estimator.ratio("other")).isEqualTo(4.0);
    }

    @Test
    void absurdObservationsAreClamped() {
        LlmRequest request = new LlmRequest("m", 100L, false, false, 4000, 4100);
        this.estimator.observe("few", request, 9);
        assertThat(this.estimator.ratio("few")).isEqualTo(8.0);
        this.estimator.observe("many", request, 100_000);
        assertThat(this.estimator.ratio("many")).isEqualTo(1.0);
        this.estimator.observe("none", request, 3);
        assertThat(this.estimator.ratio("none")).isEqualTo(4.0);
    }

    @Test
    void emptyRequestCostsNothing() {
        assertThat(this.estimator.estimateInputTokens("m", LlmRequest.unknown(0))).isZero();
    }

}
