package io.github.llmthrottle.autoconfigure;

import java.time.Duration;

/**
 * Slow start ({@code llm.throttle.slow-start.*}): until a model's provider has reported
 * its remaining capacity in rate-limit headers, at start-up and after an idle period, the
 * model admits one call at a time, so that a full local bucket never sends the provider a
 * burst it would refuse.
 */
public class SlowStartProperties {

    /**
     * Whether a model admits one call at a time until the provider's rate-limit headers
     * are known, at start-up and after an idle period.
     */
    private boolean enabled = true;

    /**
     * How long a model without a call in flight and without a response counts as idle,
     * after which it probes the provider again.
     */
    private Duration idle = Duration.ofMinutes(1);

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getIdle() {
        return this.idle;
    }

    public void setIdle(Duration idle) {
        this.idle = idle;
    }

}
