package io.github.llmthrottle.store.redis;

import java.time.Duration;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.time.FakeClock;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The pause after a 429 shared through {@link RedisBucketStore}: two limiter registries,
 * each with its own store and client, stand for two instances; a fake clock stands in for
 * the server's time and the instances'.
 */
class SharedPauseTests {

    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private final FleetOnRedis fleet = new FleetOnRedis();

    private final FakeClock clock = this.fleet.clock;

    @AfterEach
    void close() throws Exception {
        this.fleet.close();
    }

    @Test
    void aPauseOnOneInstanceHoldsTheOtherUntilTheServersTime() throws InterruptedException {
        ModelLimiter first = limiter();
        ModelLimiter second = limiter();
        assertThat(admitted(second)).isTrue();
        first.pause(Duration.ofSeconds(5));
        awaitPauseInRedis();
        assertThat(admitted(second)).as("paused by the other instance").isFalse();
        // it learned when: its own state shows the pause, as the other's does
        assertThat(second.state().pausedUntil()).isEqualTo(this.clock.instant().plusSeconds(5));
        this.clock.advance(Duration.ofMillis(4_999));
        assertThat(admitted(second)).isFalse();
        this.clock.advance(Duration.ofMillis(1));
        assertThat(admitted(second)).isTrue();
    }

    @Test
    void callsReleasedAfterASharedPauseAreSpreadAcrossTheFleet() throws InterruptedException {
        ModelLimiter first = limiter();
        ModelLimiter second = limiter();
        first.pause(Duration.ofSeconds(5));
        awaitPauseInRedis();
        this.clock.advance(Duration.ofSeconds(5));
        assertThat(admitted(second)).isTrue();
        // 600 requests a minute: one call per 100 ms across both instances
        assertThat(admitted(first)).as("the other instance took this slot").isFalse();
        assertThat(admitted(second)).isFalse();
        this.clock.advance(Duration.ofMillis(100));
        assertThat(admitted(first)).isTrue();
        assertThat(admitted(second)).isFalse();
        // two spacings without a call: the pile-up has gone, calls go as the buckets
        // allow
        this.clock.advance(Duration.ofMillis(301));
        assertThat(admitted(second)).isTrue();
        assertThat(admitted(first)).isTrue();
        assertThat(admitted(second)).isTrue();
    }

    @Test
    void anEarlierPauseDoesNotShortenOneInForce() throws InterruptedException {
        ModelLimiter first = limiter();
        ModelLimiter second = limiter();
        first.pause(Duration.ofSeconds(5));
        awaitPauseInRedis();
        second.pause(Duration.ofSeconds(1));
        this.clock.advance(Duration.ofSeconds(2));
        assertThat(admitted(limiter())).as("a third instance").isFalse();
    }

    private void awaitPauseInRedis() {
        try (StatefulRedisConnection<String, String> connection = this.fleet.client().connect()) {
            await().atMost(PATIENCE)
                .until(() -> connection.sync().exists(this.fleet.prefix + ":{anthropic:opus}:pause") == 1);
        }
    }

    private static boolean admitted(ModelLimiter limiter) throws InterruptedException {
        try {
            limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 0, 0, Duration.ZERO))
                .release(Permit.Outcome.IGNORED);
            return true;
        }
        catch (AdmissionTimeoutException ex) {
            return false;
        }
    }

    private ModelLimiter limiter() {
        return this.fleet.limiter(600L);
    }

}
