package io.github.llmthrottle.retry;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RetrySettingsTests {

    private static final Duration HALF_SECOND = Duration.ofMillis(500);

    @Test
    void defaultsMatchTheDocumentedProperties() {
        assertThat(RetrySettings.DEFAULTS).isEqualTo(new RetrySettings(4, HALF_SECOND, 2.0, Duration.ofSeconds(30),
                Jitter.FULL, true, Duration.ofSeconds(60)));
    }

    @Test
    void negativeRetriesAreRejectedByName() {
        assertThatIllegalArgumentException().isThrownBy(() -> RetrySettings.DEFAULTS.withMaxRetries(-1))
            .withMessageContaining("maxRetries");
    }

    @Test
    void zeroRetriesAreAllowed() {
        assertThat(RetrySettings.DEFAULTS.withMaxRetries(0).maxRetries()).isZero();
    }

    @Test
    void zeroOrNegativeDelayIsRejectedByName() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> new RetrySettings(4, Duration.ZERO, 2.0, Duration.ofSeconds(30), Jitter.FULL, true,
                    Duration.ofSeconds(60)))
            .withMessageContaining("delay");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> new RetrySettings(4, Duration.ofMillis(-1), 2.0, Duration.ofSeconds(30), Jitter.FULL,
                    true, Duration.ofSeconds(60)))
            .withMessageContaining("delay");
    }

    @Test
    void multiplierBelowOneIsRejectedByName() {
        for (double multiplier : new double[] { 0.5, -2, Double.NaN, Double.POSITIVE_INFINITY }) {
            assertThatIllegalArgumentException()
                .isThrownBy(() -> new RetrySettings(4, HALF_SECOND, multiplier, Duration.ofSeconds(30), Jitter.FULL,
                        true, Duration.ofSeconds(60)))
                .withMessageContaining("multiplier");
        }
    }

    @Test
    void maxDelayBelowDelayIsRejectedByName() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> new RetrySettings(4, HALF_SECOND, 2.0, Duration.ofMillis(499), Jitter.FULL, true,
                    Duration.ofSeconds(60)))
            .withMessageContaining("maxDelay");
    }

    @Test
    void negativeMaxRetryAfterIsRejectedByName() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> RetrySettings.DEFAULTS.withMaxRetryAfter(Duration.ofSeconds(-1)))
            .withMessageContaining("maxRetryAfter");
    }

}
