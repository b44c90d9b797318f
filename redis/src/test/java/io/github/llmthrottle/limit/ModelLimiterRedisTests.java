package io.github.llmthrottle.limit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.SharedStoreUnavailableException;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import io.github.llmthrottle.store.BucketStore;
import io.github.llmthrottle.store.redis.RedisBucketStore;
import io.github.llmthrottle.store.redis.RedisQuotaStore;
import io.github.llmthrottle.time.FakeClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.event.command.CommandSucceededEvent;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolKeyword;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.test.util.ReflectionTestUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link ModelLimiter} on a {@link RedisBucketStore}, against a real Redis server (the
 * one {@link TestRedis} finds or starts), under the faults of a shared store: the round
 * trips of one admission, the limiter's lock during them, a Redis that answers late, and
 * callers interrupted while Redis is involved. A {@link TcpForwarder} between the store
 * and Redis makes Redis answer late; a Lettuce {@link CommandListener} sees every command
 * the store sends, on the thread that sends it.
 */
class ModelLimiterRedisTests {

    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    /** The instances' time, and the shared buckets' (standing in for the server's). */
    private final FakeClock clock = new FakeClock(START);

    private final String prefix = "llm-throttle-test-" + UUID.randomUUID();

    private final List<AutoCloseable> closeables = new ArrayList<>();

    private final List<RedisClient> clients = new ArrayList<>();

    private final List<AsyncAcquire> started = new ArrayList<>();

    /**
     * Every command the stores of this test sent, and whether a limiter lock was held.
     */
    private final List<String> commands = new CopyOnWriteArrayList<>();

    /**
     * The locks of the limiters watched (read from the limiter, which keeps it private).
     */
    private final List<ReentrantLock> watched = new CopyOnWriteArrayList<>();

    private final AtomicInteger sentUnderLock = new AtomicInteger();

    /** The bucket script's commands the stores of this test had answered. */
    private final AtomicInteger scriptsAnswered = new AtomicInteger();

    @AfterEach
    void deleteKeysAndClose() throws Exception {
        this.started.forEach((acquire) -> acquire.thread.interrupt());
        for (AutoCloseable closeable : this.closeables) {
            closeable.close();
        }
        RedisClient client = client(TestRedis.port());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            List<String> keys = connection.sync().keys(this.prefix + ":*");
            if (!keys.isEmpty()) {
                connection.sync().del(keys.toArray(String[]::new));
            }
        }
        this.clients.forEach(RedisClient::shutdown);
    }

    @Test
    void oneAdmissionTakesAllItsBucketsAtOnceInOneRoundTrip() throws InterruptedException {
        RedisBucketStore store = store(TestRedis.port(), RedisBucketStore.OnFailure.REJECT, Duration.ofSeconds(2));
        ModelLimiter limiter = limiter(store, new ModelLimits(100L, 10_000L, 2_000L, null),
                new TenantLimits(10L, 5_000L, null));
        // the first admission of a tenant creates its buckets: count the second
        limiter.acquire(request("acme", 100, 50)).release(Permit.Outcome.SUCCESS);
        awaitQuiet();
        this.commands.clear();
        Permit permit = limiter.acquire(request("acme", 100, 50));
        assertThat(this.commands).as("commands sent by one admission").hasSize(1);
        this.commands.clear();
        permit.settle(80, 20);
        permit.release(Permit.Outcome.SUCCESS);
        awaitQuiet();
        assertThat(this.commands).as("commands sent by the settlement and release").hasSize(1);
        // all five buckets were taken by the admissions, and corrected by the settlement
        RedisBucketStore other = store(TestRedis.port(), RedisBucketStore.OnFailure.REJECT, Duration.ofSeconds(2));
        ModelLimiter second = limiter(other, new ModelLimits(100L, 10_000L, 2_000L, null),
                new TenantLimits(10L, 5_000L, null));
        second.acquire(request("acme", 0, 0)).release(Permit.Outcome.SUCCESS);
        await().atMost(PATIENCE).untilAsserted(() -> {
            LimiterState.Available available = second.state().available();
            assertThat(available.requests()).isEqualTo(97);
            assertThat(available.inputTokens()).isEqualTo(10_000 - 180);
            assertThat(available.outputTokens()).isEqualTo(2_000 - 70);
        });
    }

    @Test
    void anAdmissionThatDoesNotFitTakesNoBucket() throws InterruptedException {
        RedisBucketStore store = store(TestRedis.port(), RedisBucketStore.OnFailure.REJECT, Duration.ofSeconds(2));
        ModelLimiter limiter = new ModelLimiter("anthropic", "opus", new ModelLimits(100L, 1_000L, null, null), 100,
                Duration.ZERO, (tenant) -> "acme".equals(tenant) ? new TenantLimits(null, 300L, null) : null, store,
                this.clock, LimiterOptions.WITHOUT_SLOW_START);
        limiter.acquire(request("acme", 250, 0)).release(Permit.Outcome.SUCCESS);
        // the tenant's bucket holds 50: neither the model's nor the tenant's is touched
        assertThatExceptionOfType(io.github.llmthrottle.TenantQuotaExceededException.class)
            .isThrownBy(() -> limiter.acquire(request("acme", 100, 0)));
        Permit other = limiter.acquire(request("other", 750, 0));
        other.release(Permit.Outcome.SUCCESS);
        assertThatExceptionOfType(AdmissionTimeoutException.class)
            .isThrownBy(() -> limiter.acquire(request("other", 1, 0)));
    }

    @Test
    void theProvidersBurstLearnedByOneInstanceCapsTheSharedBucketForEveryInstance() throws InterruptedException {
        ModelLimits limits = new ModelLimits(null, 60_000L, null, null);
        ModelLimiter first = limiter(store(TestRedis.port(), RedisBucketStore.OnFailure.REJECT, Duration.ofSeconds(2)),
                limits, null);
        ModelLimiter second = limiter(store(TestRedis.port(), RedisBucketStore.OnFailure.REJECT, Duration.ofSeconds(2)),
                limits, null);
        // The first instance's call is answered: 5,000 input tokens left, full again in
        // 15 s. The provider holds 20 s of its limit, at least 4,500 + 14,000 = 18,500.
        first.acquire(request(null, 1_000, 0)).release(Permit.Outcome.SUCCESS);
        Instant now = this.clock.instant();
        first.calibrate(new RateLimitSnapshot(null, null, null, 60_000L, 5_000L, now.plusSeconds(15), null, null, null,
                null, null, null, now));
        awaitQuiet();
        this.clock.advance(Duration.ofMinutes(1));
        // A minute later the shared bucket holds the provider's burst, not a minute's
        // worth, for the instance that learned nothing too.
        second.acquire(request(null, 18_000, 0)).release(Permit.Outcome.SUCCESS);
        assertThatExceptionOfType(AdmissionTimeoutException.class)
            .isThrownBy(() -> second.acquire(request(null, 1_000, 0)));
        // A call larger than the burst but within the limit is never refused for it: it
        // waits for a full shared bucket (longer than max-wait here) on both.
        assertThatExceptionOfType(AdmissionTimeoutException.class)
            .isThrownBy(() -> first.acquire(request(null, 19_000, 0)));
        assertThatExceptionOfType(AdmissionTimeoutException.class)
            .isThrownBy(() -> second.acquire(request(null, 19_000, 0)));
    }

    @Test
    void noRedisCommandIsSentWithALimiterLockHeld() throws InterruptedException {
        RedisBucketStore store = store(TestRedis.port(), RedisBucketStore.OnFailure.LOCAL, Duration.ofSeconds(2));
        ModelLimiter limiter = limiter(store, new ModelLimits(100L, 10_000L, 2_000L, null),
                new TenantLimits(10L, 5_000L, null));
        Permit permit = limiter.acquire(request("acme", 100, 50));
        permit.settle(80, 20);
        limiter.calibrate(new RateLimitSnapshot(100L, 50L, null, 10_000L, 1_000L, null, 2_000L, 500L, null, null, null,
                null, this.clock.instant()));
        limiter.state();
        limiter.estimatedWait(request("acme", 100, 50));
        limiter.updateLimits(new ModelLimits(200L, 10_000L, 2_000L, null));
        permit.release(Permit.Outcome.SUCCESS);
        limiter.acquire(request("acme", 100, 50)).release(Permit.Outcome.IGNORED);
        awaitQuiet();
        assertThat(this.commands).isNotEmpty();
        assertThat(this.sentUnderLock).as("commands sent with the limiter's lock held").hasValue(0);
    }

    @Test
    void aSlowRedisStallsNeitherTheStateNorRoutingsEstimateNorCallsGivingUp() throws Exception {
        TcpForwarder forwarder = forwarder();
        // the command timeout is far longer than the patience of the checks below: a
        // check that waited for the held command would exceed it however fast the
        // machine, and the held command itself never times out however slow
        RedisBucketStore store = store(forwarder.port(), RedisBucketStore.OnFailure.REJECT, PATIENCE.multipliedBy(6));
        LimiterRegistry registry = new LimiterRegistry(
                Map.of("anthropic", new ClientLimits(null, Map.of("opus", new ModelLimits(100L, null, null, null)))),
                100, Duration.ofSeconds(30), (tenant) -> null, store, this.clock);
        ModelLimiter limiter = registry.limiter("anthropic", "opus");
        limiter.acquire(request(null, 0, 0)).release(Permit.Outcome.SUCCESS);
        awaitQuiet();
        forwarder.hold();
        try {
            int sent = this.commands.size();
            AsyncAcquire slow = AsyncAcquire.start(limiter, request(null, 0, 0));
            this.started.add(slow);
            // its command is sent and held until the forwarder resumes
            await().atMost(PATIENCE).until(() -> this.commands.size() > sent);
            assertThat(slow.result).isNotDone();
            assertThat(timed(limiter::state)).isLessThan(PATIENCE);
            assertThat(timed(registry::states)).isLessThan(PATIENCE);
            assertThat(timed(() -> limiter.estimatedWait(request(null, 0, 0)))).isLessThan(PATIENCE);
            assertThat(timed(() -> assertThatExceptionOfType(AdmissionTimeoutException.class)
                .isThrownBy(() -> limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 0, 0, Duration.ZERO)))))
                .isLessThan(PATIENCE);
            assertThat(slow.result).as("the slow call still waits for Redis").isNotDone();
            forwarder.resume();
            slow.permit().release(Permit.Outcome.SUCCESS);
        }
        finally {
            forwarder.resume();
        }
    }

    @ParameterizedTest
    @EnumSource(RedisBucketStore.OnFailure.class)
    void aCallerInterruptedWhileSettlingAndReleasingNeitherFailsNorWavesThroughTheQueuedCallers(
            RedisBucketStore.OnFailure onFailure) throws Exception {
        RedisBucketStore store = store(TestRedis.port(), onFailure, Duration.ofSeconds(2));
        ModelLimiter limiter = new ModelLimiter("anthropic", "opus", new ModelLimits(1L, null, null, null), 10,
                Duration.ofMinutes(5), (tenant) -> null, store, this.clock.pollingWaits(),
                LimiterOptions.WITHOUT_SLOW_START);
        Permit first = limiter.acquire(request(null, 0, 0));
        AsyncAcquire second = enqueue(limiter, waiting());
        AsyncAcquire third = enqueue(limiter, waiting());
        CompletableFuture<Boolean> interrupted = CompletableFuture.supplyAsync(() -> {
            // a cancelled call: its thread is interrupted during the HTTP exchange, then
            // settles and releases
            Thread.currentThread().interrupt();
            first.settle(0, 0);
            first.release(Permit.Outcome.IGNORED);
            return Thread.interrupted();
        });
        assertThat(interrupted.get(10, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(300);
        assertThat(second.result).as("the shared bucket holds nothing yet").isNotDone();
        assertThat(third.result).isNotDone();
        assertThat(store.isUnavailable()).isFalse();
        this.clock.advance(Duration.ofSeconds(60));
        second.permit().release(Permit.Outcome.SUCCESS);
        assertThat(third.result).isNotDone();
    }

    @Test
    void aCallerInterruptedDuringItsOwnRedisCommandEndsAloneAndGivesBackWhatItTook() throws Exception {
        TcpForwarder forwarder = forwarder();
        RedisBucketStore store = store(forwarder.port(), RedisBucketStore.OnFailure.REJECT, Duration.ofSeconds(5));
        ModelLimiter limiter = new ModelLimiter("anthropic", "opus", new ModelLimits(2L, null, null, null), 10,
                Duration.ofMinutes(5), (tenant) -> null, store, this.clock.pollingWaits(),
                LimiterOptions.WITHOUT_SLOW_START);
        limiter.acquire(request(null, 0, 0)).release(Permit.Outcome.SUCCESS);
        forwarder.hold();
        AsyncAcquire interrupted = AsyncAcquire.start(limiter, waiting());
        this.started.add(interrupted);
        Thread.sleep(100);
        AsyncAcquire behind = AsyncAcquire.start(limiter, waiting());
        this.started.add(behind);
        Thread.sleep(200);
        interrupted.thread.interrupt();
        assertThat(interrupted.failure()).isInstanceOf(InterruptedException.class);
        assertThat(interrupted.interruptFlagAfterwards).isTrue();
        forwarder.resume();
        // the command went through late: its request is given back, and the one behind
        // gets it
        behind.permit().release(Permit.Outcome.SUCCESS);
        assertThat(store.isUnavailable()).isFalse();
        assertThatExceptionOfType(AdmissionTimeoutException.class)
            .isThrownBy(() -> limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 0, 0, Duration.ZERO)));
    }

    @Test
    void oneSlowCommandFailsOnlyItsOwnCallInRejectMode() throws Exception {
        TcpForwarder forwarder = forwarder();
        RedisBucketStore store = store(forwarder.port(), RedisBucketStore.OnFailure.REJECT, Duration.ofMillis(300));
        ModelLimiter limiter = limiter(store, new ModelLimits(3L, null, null, null), null);
        limiter.acquire(request(null, 0, 0)).release(Permit.Outcome.SUCCESS);
        forwarder.hold();
        AsyncAcquire slow = AsyncAcquire.start(limiter, request(null, 0, 0));
        this.started.add(slow);
        assertThat(slow.failure()).isInstanceOf(SharedStoreUnavailableException.class);
        forwarder.resume();
        assertThat(store.isUnavailable()).isFalse();
        // the next call goes to Redis at once, and the late command's request is given
        // back: two requests of three are left. The levels shown said two before the
        // late command even reached Redis: wait for the answers to the first admission,
        // the late command and the give-back.
        awaitAnswers(3);
        assertThat(limiter.state().available().requests()).isEqualTo(2);
        limiter.acquire(request(null, 0, 0)).release(Permit.Outcome.SUCCESS);
        limiter.acquire(request(null, 0, 0)).release(Permit.Outcome.SUCCESS);
        assertThatExceptionOfType(AdmissionTimeoutException.class)
            .isThrownBy(() -> limiter.acquire(request(null, 0, 0)));
    }

    @Test
    void oneSlowCommandServesOnlyItsOwnCallFromLocalBucketsInLocalMode() throws Exception {
        TcpForwarder forwarder = forwarder();
        RedisBucketStore store = store(forwarder.port(), RedisBucketStore.OnFailure.LOCAL, Duration.ofMillis(300));
        ModelLimiter limiter = limiter(store, new ModelLimits(3L, null, null, null), null);
        limiter.acquire(request(null, 0, 0)).release(Permit.Outcome.SUCCESS);
        forwarder.hold();
        AsyncAcquire slow = AsyncAcquire.start(limiter, request(null, 0, 0));
        this.started.add(slow);
        slow.permit().release(Permit.Outcome.SUCCESS);
        forwarder.resume();
        assertThat(store.isUnavailable()).isFalse();
        // the answers to the first admission, the late command and its give-back (the
        // local bucket's level, shown meanwhile, said two already)
        awaitAnswers(3);
        assertThat(limiter.state().available().requests()).isEqualTo(2);
        limiter.acquire(request(null, 0, 0)).release(Permit.Outcome.SUCCESS);
        limiter.acquire(request(null, 0, 0)).release(Permit.Outcome.SUCCESS);
        assertThatExceptionOfType(AdmissionTimeoutException.class)
            .isThrownBy(() -> limiter.acquire(request(null, 0, 0)));
    }

    private static Duration timed(Runnable action) {
        long start = System.nanoTime();
        action.run();
        return Duration.ofNanos(System.nanoTime() - start);
    }

    private AsyncAcquire enqueue(ModelLimiter limiter, AdmissionRequest request) {
        AsyncAcquire acquire = AsyncAcquire.start(limiter, request);
        this.started.add(acquire);
        int before = limiter.state().queued().total();
        await().pollDelay(Duration.ofMillis(50))
            .atMost(PATIENCE)
            .until(() -> acquire.result.isDone() || limiter.state().queued().total() > before
                    || limiter.state().inFlight() > 0);
        return acquire;
    }

    /**
     * Waits until the stores had {@code count} of the bucket script's commands answered
     * in all: a command sent without waiting (a give-back) has then been applied.
     */
    private void awaitAnswers(int count) {
        await().atMost(PATIENCE)
            .untilAsserted(() -> assertThat(this.scriptsAnswered.get()).isGreaterThanOrEqualTo(count));
    }

    /** Waits until the stores have no command in flight. */
    private void awaitQuiet() throws InterruptedException {
        int seen;
        do {
            seen = this.commands.size();
            Thread.sleep(100);
        }
        while (seen != this.commands.size());
    }

    private static AdmissionRequest waiting() {
        return new AdmissionRequest(Priority.NORMAL, null, 0, 0, Duration.ofMinutes(5));
    }

    private static AdmissionRequest request(@Nullable String tenant, long input, long output) {
        return new AdmissionRequest(Priority.NORMAL, tenant, input, output, Duration.ZERO);
    }

    private ModelLimiter limiter(BucketStore store, ModelLimits limits, @Nullable TenantLimits tenantLimits) {
        ModelLimiter limiter = new ModelLimiter("anthropic", "opus", limits, 100, Duration.ZERO,
                (tenant) -> tenantLimits, store, this.clock, LimiterOptions.WITHOUT_SLOW_START);
        this.watched.add((ReentrantLock) ReflectionTestUtils.getField(limiter, "lock"));
        return limiter;
    }

    private TcpForwarder forwarder() throws Exception {
        TcpForwarder forwarder = new TcpForwarder(TcpForwarder.freePort(), TestRedis.port());
        this.closeables.add(forwarder);
        forwarder.start();
        return forwarder;
    }

    private RedisBucketStore store(int port, RedisBucketStore.OnFailure onFailure, Duration timeout) {
        RedisClient client = client(port);
        client.addListener(new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                ModelLimiterRedisTests.this.commands.add(event.getCommand().getType().toString());
                for (ReentrantLock lock : ModelLimiterRedisTests.this.watched) {
                    if (lock.isHeldByCurrentThread()) {
                        ModelLimiterRedisTests.this.sentUnderLock.incrementAndGet();
                    }
                }
            }

            @Override
            public void commandSucceeded(CommandSucceededEvent event) {
                ProtocolKeyword type = event.getCommand().getType();
                if (type == CommandType.EVALSHA || type == CommandType.EVAL) {
                    ModelLimiterRedisTests.this.scriptsAnswered.incrementAndGet();
                }
            }
        });
        RedisBucketStore store = new RedisBucketStore(client, this.prefix, onFailure, timeout, Duration.ofSeconds(2),
                this.clock, this.clock);
        this.closeables.add(0, store);
        return store;
    }

    private RedisClient client(int port) {
        RedisClient client = RedisClient.create(
                RedisURI.builder().withHost(TestRedis.HOST).withPort(port).withTimeout(Duration.ofSeconds(2)).build());
        this.clients.add(client);
        return client;
    }

}
