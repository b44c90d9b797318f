package io.github.llmthrottle.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.SharedStoreUnavailableException;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.time.FakeClock;
import io.lettuce.core.api.StatefulRedisConnection;
import org.jspecify.annotations.Nullable;
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
    void noInstanceIsAdmittedOnceAPauseReturnsEvenATakeThatRacedIt() throws Exception {
        RedisBucketStore firstStore = this.fleet.store();
        RedisBucketStore secondStore = this.fleet.store();
        ModelLimiter first = this.fleet.limiter(600L, firstStore);
        ModelLimiter second = this.fleet.limiter(600L, secondStore);
        ModelLimiter third = limiter();
        assertThat(admitted(first)).isTrue();
        assertThat(admitted(second)).isTrue();
        assertThat(admitted(third)).isTrue();
        // the pause waits in Redis behind a blocking command on the first instance's
        // connection, and a take of the second instance behind a longer one on its own
        CompletableFuture<?> firstBlocked = block(firstStore, 0.5);
        CompletableFuture<?> secondBlocked = block(secondStore, 1.0);
        CompletableFuture<Boolean> raced = CompletableFuture.supplyAsync(() -> admittedUnchecked(second));
        first.pause(Duration.ofSeconds(5));
        assertThat(firstBlocked).as("the pause waited for Redis").isDone();
        assertThat(pauseInRedis()).isTrue();
        assertThat(admitted(third)).as("a take sent once the pause returned").isFalse();
        assertThat(raced.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("a take that raced the pause into Redis")
            .isFalse();
        assertThat(secondBlocked).isDone();
        this.clock.advance(Duration.ofMillis(4_999));
        assertThat(admitted(second)).isFalse();
        assertThat(admitted(third)).isFalse();
        this.clock.advance(Duration.ofMillis(1));
        assertThat(admitted(third)).isTrue();
    }

    @Test
    void aPauseReturnsWithoutRedisOnceItsTimeoutIsOverAndHoldsThisInstance() throws Exception {
        RedisBucketStore firstStore = this.fleet.store();
        ModelLimiter first = this.fleet.limiter(600L, firstStore);
        assertThat(admitted(first)).isTrue();
        // longer than the store's timeout of 2 s: the pause never reaches Redis in time
        block(firstStore, 3.0);
        first.pause(Duration.ofSeconds(5));
        assertThat(pauseInRedis()).as("returned after the timeout, before Redis held it").isFalse();
        assertThat(admitted(first)).as("held by its own pause").isFalse();
        await().atMost(PATIENCE).until(this::pauseInRedis);
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

    @Test
    void noInstanceOfThreeIsAdmittedDuringAnotherInstancesPause() throws InterruptedException {
        List<ModelLimiter> fleet = List.of(limiter(6_000_000L), limiter(6_000_000L), limiter(6_000_000L));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong attempts = new AtomicLong();
        ConcurrentLinkedQueue<long[]> admissions = new ConcurrentLinkedQueue<>();
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < fleet.size(); i++) {
            for (int t = 0; t < 2; t++) {
                int instance = i;
                Thread caller = new Thread(() -> {
                    while (!stop.get()) {
                        long started = System.nanoTime();
                        try {
                            if (admitted(fleet.get(instance))) {
                                admissions.add(new long[] { instance, started, this.clock.millis() });
                            }
                        }
                        catch (InterruptedException ex) {
                            return;
                        }
                        attempts.incrementAndGet();
                    }
                });
                caller.start();
                callers.add(caller);
            }
        }
        try {
            await().atMost(PATIENCE).until(() -> admissions.stream().map((a) -> a[0]).distinct().count() == 3);
            // the first instance's 429 with retry-after: 5
            long pausedAt = this.clock.millis();
            fleet.get(0).pause(Duration.ofSeconds(5));
            awaitPauseInRedis();
            long held = System.nanoTime();
            // through the pause, each caller trying again at every step
            for (int step = 0; step < 50; step++) {
                long before = attempts.get();
                await().atMost(PATIENCE).until(() -> attempts.get() >= before + 2 * callers.size());
                if (step < 49) {
                    this.clock.advance(Duration.ofMillis(100));
                }
            }
            this.clock.advance(Duration.ofMillis(100));
            await().atMost(PATIENCE).until(() -> admissions.stream().anyMatch((a) -> a[2] >= pausedAt + 5_000));
            List<long[]> leaks = admissions.stream().filter((a) -> a[1] - held > 0 && a[2] < pausedAt + 5_000).toList();
            assertThat(leaks).as("calls admitted by any instance after the pause reached Redis, before its end")
                .isEmpty();
        }
        finally {
            stop.set(true);
            for (Thread caller : callers) {
                caller.join(PATIENCE.toMillis());
            }
        }
    }

    @Test
    void aModelWithoutLimitsHoldsTheNextCallOfAnotherInstanceOnceItsPauseIsInRedis() throws InterruptedException {
        ModelLimiter first = limiter(null);
        ModelLimiter second = limiter(null);
        first.pause(Duration.ofSeconds(5));
        awaitPauseInRedis();
        // its very first call: nothing read in the background yet, Redis answers
        assertThat(admitted(second)).as("held by the other instance's pause").isFalse();
        assertThat(second.state().pausedUntil()).isEqualTo(this.clock.instant().plusSeconds(5));
        this.clock.advance(Duration.ofMillis(4_999));
        assertThat(admitted(second)).isFalse();
        this.clock.advance(Duration.ofMillis(1));
        assertThat(admitted(second)).isTrue();
        // released one per 100 ms across the fleet, as a model with limits is
        assertThat(admitted(first)).isFalse();
        this.clock.advance(Duration.ofMillis(100));
        assertThat(admitted(first)).isTrue();
    }

    @Test
    void aModelWithoutLimitsFailsItsCallWhenRedisIsLateAndTheStoreRejects() throws InterruptedException {
        RedisBucketStore store = this.fleet.store();
        ModelLimiter limiter = this.fleet.limiter(null, store);
        assertThat(admitted(limiter)).isTrue();
        // longer than the store's timeout of 2 s
        block(store, 3.0);
        assertThatExceptionOfType(SharedStoreUnavailableException.class).isThrownBy(() -> admitted(limiter));
    }

    @Test
    void aModelWithoutLimitsIsAdmittedOnItsOwnWhenRedisIsLateAndTheStoreFallsBack() throws InterruptedException {
        RedisBucketStore store = this.fleet.store(RedisBucketStore.OnFailure.LOCAL);
        ModelLimiter limiter = this.fleet.limiter(null, store);
        assertThat(admitted(limiter)).isTrue();
        block(store, 3.0);
        assertThat(admitted(limiter)).as("served without Redis").isTrue();
    }

    /**
     * Sends a command that blocks {@code store}'s own connection for {@code seconds}:
     * what the store sends next waits behind it in Redis.
     */
    @SuppressWarnings("unchecked")
    private CompletableFuture<?> block(RedisBucketStore store, double seconds) {
        RedisConnector.Connection connection = store.connector().current();
        assertThat(connection).isNotNull();
        return ((StatefulRedisConnection<String, String>) connection.connection()).async()
            .blpop(seconds, this.fleet.prefix + ":nothing")
            .toCompletableFuture();
    }

    private boolean pauseInRedis() {
        try (StatefulRedisConnection<String, String> connection = this.fleet.client().connect()) {
            return connection.sync().exists(this.fleet.prefix + ":{anthropic:opus}:pause") == 1;
        }
    }

    private static boolean admittedUnchecked(ModelLimiter limiter) {
        try {
            return admitted(limiter);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
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
        return limiter(600L);
    }

    private ModelLimiter limiter(@Nullable Long requestsPerMinute) {
        return this.fleet.limiter(requestsPerMinute);
    }

}
