package io.github.llmthrottle.retry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BackOffTests {

    private static final RetrySettings SETTINGS = RetrySettings.DEFAULTS;

    @Test
    void twoJvmsDrawDifferentJitter() throws Exception {
        // A ThreadLocalRandom.current() kept in a field draws from the calling thread's
        // seed, and the n-th thread of every JVM starts from the same one: instances
        // retrying at once would all wait the same. The probe shows both.
        assertThat(JitterProbe.run("captured")).isEqualTo(JitterProbe.run("captured"));
        assertThat(JitterProbe.run("library")).isNotEqualTo(JitterProbe.run("library"));
    }

    @Test
    @DisplayName("without jitter the k-th back-off is delay * multiplier^(k-1), capped at maxDelay")
    void growsExponentiallyUpToTheCap() {
        BackOff backOff = new BackOff(SETTINGS.withJitter(Jitter.NONE), fixed(0.5));
        List<Duration> delays = new ArrayList<>();
        for (int retry = 1; retry <= 8; retry++) {
            delays.add(backOff.backOff(retry, null));
        }
        assertThat(delays).containsExactly(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
                Duration.ofSeconds(4), Duration.ofSeconds(8), Duration.ofSeconds(16), Duration.ofSeconds(30),
                Duration.ofSeconds(30));
        assertThat(backOff.backOff(10_000, null)).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void fullJitterIsBetweenZeroAndTheExponentialDelay() {
        assertThat(new BackOff(SETTINGS, fixed(0.0)).backOff(3, null)).isZero();
        assertThat(new BackOff(SETTINGS, fixed(0.5)).backOff(3, null)).isEqualTo(Duration.ofSeconds(1));
        assertThat(new BackOff(SETTINGS, fixed(0.999999)).backOff(3, null)).isBetween(Duration.ofMillis(1999),
                Duration.ofSeconds(2));
    }

    @Test
    void equalJitterKeepsAtLeastHalf() {
        RetrySettings settings = SETTINGS.withJitter(Jitter.EQUAL);
        assertThat(new BackOff(settings, fixed(0.0)).backOff(3, null)).isEqualTo(Duration.ofSeconds(1));
        assertThat(new BackOff(settings, fixed(0.5)).backOff(3, null)).isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void decorrelatedJitterGrowsFromThePreviousSleep() {
        RetrySettings settings = SETTINGS.withJitter(Jitter.DECORRELATED);
        assertThat(new BackOff(settings, fixed(0.0)).backOff(1, null)).isEqualTo(Duration.ofMillis(500));
        assertThat(new BackOff(settings, fixed(0.5)).backOff(1, null)).isEqualTo(Duration.ofMillis(1000));
        assertThat(new BackOff(settings, fixed(0.5)).backOff(2, Duration.ofSeconds(2)))
            .isEqualTo(Duration.ofMillis(3250));
        assertThat(new BackOff(settings, fixed(0.9)).backOff(5, Duration.ofSeconds(29)))
            .isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    @DisplayName("a server wait is honoured exactly without jitter")
    void honoursServerWaitExactlyWithoutJitter() {
        BackOff backOff = new BackOff(SETTINGS.withJitter(Jitter.NONE), fixed(0.9));
        assertThat(backOff.honour(Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(5));
        assertThat(backOff.waitBefore(1, Duration.ofMillis(1234), null)).isEqualTo(Duration.ofMillis(1234));
    }

    @Test
    @DisplayName("jitter is added on top of a server wait, never subtracted")
    void addsSmallJitterOnTopOfServerWait() {
        BackOff backOff = new BackOff(SETTINGS, fixed(0.5));
        assertThat(backOff.honour(Duration.ofSeconds(10))).isEqualTo(Duration.ofMillis(10_250));
        assertThat(backOff.honour(Duration.ofSeconds(1))).isEqualTo(Duration.ofMillis(1_050));
        assertThat(new BackOff(SETTINGS, fixed(0.0)).honour(Duration.ofSeconds(10))).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    @DisplayName("a zero server wait stays zero")
    void zeroServerWaitStaysZero() {
        assertThat(new BackOff(SETTINGS, fixed(0.9)).honour(Duration.ZERO)).isZero();
        assertThat(new BackOff(SETTINGS, fixed(0.9)).honour(Duration.ofSeconds(-3))).isZero();
    }

    @Test
    void serverWaitsAreNotCappedByMaxDelay() {
        BackOff backOff = new BackOff(SETTINGS.withJitter(Jitter.NONE), fixed(0.5));
        assertThat(backOff.waitBefore(1, Duration.ofSeconds(45), null)).isEqualTo(Duration.ofSeconds(45));
    }

    @Property(tries = 500)
    void chosenWaitIsNeverBelowTheServerWaitNorNegative(@ForAll @IntRange(min = 1, max = 200) int retry,
            @ForAll @LongRange(min = 0, max = 86_400_000) long serverWaitMillis,
            @ForAll @LongRange(min = 1, max = 60_000) long delayMillis,
            @ForAll @DoubleRange(min = 1.0, max = 10.0) double multiplier, @ForAll Jitter jitter, @ForAll long seed) {
        RetrySettings settings = new RetrySettings(4, Duration.ofMillis(delayMillis), multiplier,
                Duration.ofMillis(delayMillis * 60), jitter, true, Duration.ofSeconds(60));
        BackOff backOff = new BackOff(settings, new SplittableRandom(seed));
        Duration serverWait = Duration.ofMillis(serverWaitMillis);
        Duration wait = backOff.waitBefore(retry, serverWait, Duration.ofMillis(delayMillis));
        assertThat(wait).isGreaterThanOrEqualTo(serverWait);
        assertThat(wait).isLessThanOrEqualTo(serverWait.plus(settings.delay()));
    }

    @Property(tries = 500)
    void backOffStaysBetweenZeroAndMaxDelay(@ForAll @IntRange(min = 1, max = 10_000) int retry,
            @ForAll @LongRange(min = 1, max = 60_000) long delayMillis,
            @ForAll @LongRange(min = 0, max = 600_000) long extraMillis,
            @ForAll @DoubleRange(min = 1.0, max = 100.0) double multiplier, @ForAll Jitter jitter,
            @ForAll @LongRange(min = 0, max = 10_000_000) long previousMillis, @ForAll long seed) {
        RetrySettings settings = new RetrySettings(4, Duration.ofMillis(delayMillis), multiplier,
                Duration.ofMillis(delayMillis + extraMillis), jitter, true, Duration.ofSeconds(60));
        BackOff backOff = new BackOff(settings, new SplittableRandom(seed));
        Duration wait = backOff.waitBefore(retry, null, Duration.ofMillis(previousMillis));
        assertThat(wait).isBetween(Duration.ZERO, settings.maxDelay());
        assertThat(backOff.backOff(retry, null)).isBetween(Duration.ZERO, settings.maxDelay());
    }

    static RandomGenerator fixed(double value) {
        return new RandomGenerator() {

            @Override
            public long nextLong() {
                return 0;
            }

            @Override
            public double nextDouble() {
                return value;
            }

        };
    }

}
