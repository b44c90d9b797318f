package io.github.llmthrottle.limit;

import java.time.Duration;

/**
 * Whether a model admits one call at a time until the provider's rate-limit headers are
 * known, at start-up and after an idle period ({@code llm.throttle.slow-start.*}); see
 * {@link SlowStart}.
 *
 * @param enabled whether to probe at start-up and after an idle period
 * @param idle how long without a response (and nothing in flight) counts as idle
 */
public record SlowStartSettings(boolean enabled, Duration idle) {

    /** On, idle after one minute. */
    public static final SlowStartSettings DEFAULTS = new SlowStartSettings(true, Duration.ofMinutes(1));

    /** Off: admission as the buckets allow from the first call. */
    public static final SlowStartSettings OFF = new SlowStartSettings(false, Duration.ofMinutes(1));

    public SlowStartSettings {
        if (idle.isNegative() || idle.isZero()) {
            throw new IllegalArgumentException("idle must be positive, was " + idle);
        }
    }

}
