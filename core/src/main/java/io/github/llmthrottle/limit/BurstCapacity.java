package io.github.llmthrottle.limit;

import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.time.Nanos;
import org.jspecify.annotations.Nullable;

/**
 * The burst the provider can take in each dimension, learned from its rate-limit headers.
 * A provider's bucket refills at {@code limit} a minute (its {@code -limit} header) but
 * may hold less than a minute's worth: Anthropic says a per-minute limit "may be
 * enforced" over shorter intervals. Its {@code -remaining} and {@code -reset} (the
 * instant the bucket is full again) give the size of the bucket in one response:
 * {@code remaining + (reset - now) × limit / 60 s}. Each response gives a lower bound of
 * it (the remaining token counts are rounded to the nearest thousand, so 500 less; the
 * reset instants to whole seconds, so one second less), and the largest lower bound seen
 * is the burst: never more than the provider can take, and as close to it as the
 * provider's own rounding allows.
 *
 * <p>
 * A learned burst must be plausible and ages: a bound below one second's refill (a
 * gateway's {@code remaining: 1} with a reset of {@code 0s}, a reset read against a host
 * clock running ahead) is not taken, and a burst learned more than {@value #AGE_MINUTES}
 * minutes before the latest response gives way to what that response says, so one odd
 * header cannot cap a model for good. A call larger than the burst is never refused for
 * it: it waits for a full bucket (see {@link BucketSet#withinBurst}).
 *
 * <p>
 * A burst within two seconds' refill (and the rounding) of a whole minute's worth is
 * taken for a whole minute: the provider then holds its per-minute limit, as documented,
 * and nothing is capped. Learned bursts are forgotten when the limits are configured
 * anew.
 *
 * <p>
 * Not thread-safe: the owning {@link ModelLimiter} guards it with its lock.
 */
public final class BurstCapacity {

    private static final long MINUTE_NANOS = TimeUnit.MINUTES.toNanos(1);

    private static final long SECOND_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final long ROUNDING_SLACK = 500;

    static final long AGE_MINUTES = 10;

    private static final long AGE_NANOS = TimeUnit.MINUTES.toNanos(AGE_MINUTES);

    private final Map<Dimension, Learned> learned = new EnumMap<>(Dimension.class);

    /**
     * Learns from one dimension of one response.
     * @param dimension the dimension
     * @param limit the per-minute limit in force (the refill rate), or {@code null}
     * @param remaining what the provider said is left, or {@code null}
     * @param reset when the provider said its bucket is full again, or {@code null}
     * @param observedAt when the response was received
     */
    void learn(Dimension dimension, @Nullable Long limit, @Nullable Long remaining, @Nullable Instant reset,
            Instant observedAt) {
        if (limit == null || limit <= 0 || remaining == null || reset == null) {
            return;
        }
        long toFull = Math.max(0, Nanos.between(observedAt, reset) - SECOND_NANOS);
        double refill = (double) limit * toFull / MINUTE_NANOS;
        long bound = (long) Math.min((double) limit, ProviderCalibration.least(dimension, remaining) + refill);
        // a bucket smaller than one second's refill is no provider's burst
        if (bound <= 0 || bound < (limit + 59) / 60) {
            return;
        }
        Learned known = this.learned.get(dimension);
        if (known == null || bound > known.bound || Nanos.between(known.at, observedAt) > AGE_NANOS) {
            this.learned.put(dimension, new Learned(bound, observedAt));
        }
    }

    /**
     * The burst that caps the bucket of a dimension.
     * @param dimension the dimension
     * @param limit the per-minute limit in force
     * @return the burst, or {@code null} when none was learned or it is a whole minute's
     * worth
     */
    @Nullable Long of(Dimension dimension, @Nullable Long limit) {
        Learned learned = this.learned.get(dimension);
        if (learned == null || limit == null) {
            return null;
        }
        long burst = learned.bound;
        long margin = 2 * limit / 60 + ((dimension != Dimension.REQUESTS) ? 2 * ROUNDING_SLACK : 0);
        return (burst < limit - margin) ? burst : null;
    }

    /** Forgets what was learned. */
    void forget() {
        this.learned.clear();
    }

    /** The largest lower bound of a burst, and when the response that gave it came. */
    private record Learned(long bound, Instant at) {

    }

}
