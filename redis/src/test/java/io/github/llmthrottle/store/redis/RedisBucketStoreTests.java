package io.github.llmthrottle.store.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.SharedStoreUnavailableException;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.ClientLimits;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.limit.TcpForwarder;
import io.github.llmthrottle.limit.TestRedis;
import io.github.llmthrottle.store.BucketStore;
import io.github.llmthrottle.store.BucketStoreUnavailableException;
import io.github.llmthrottle.store.TokenBucket;
import io.github.llmthrottle.time.FakeClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedisBucketStore} against a real Redis server, the one {@link TestRedis} finds
 * or starts (each test uses keys of its own and deletes them). Two stores, each with its
 * own client, stand for two instances.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisBucketStoreTests {

    /**
     * The command timeout of the stores: long enough that a loaded machine does not take
     * an answered command for an outage.
     */
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private static final Duration RETRY = Duration.ofSeconds(2);

    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    /** The instances' time, and the shared buckets' (standing in for the server's). */
    private final FakeClock clock = new FakeClock(START);

    private final String prefix = "llm-throttle-test-" + UUID.randomUUID();

    private final List<AutoCloseable> closeables = new ArrayList<>();

    private final List<RedisClient> clients = new ArrayList<>();

    @AfterEach
    void deleteKeysAndClose() throws Exception {
        for (AutoCloseable closeable : this.closeables) {
            closeable.close();
        }
        TestRedis.deleteKeys(this.prefix);
        this.clients.forEach(RedisClient::shutdown);
    }

    @Test
    void twoInstancesSharingRedisTogetherAdmitNoMoreThanOneModelsLimit() throws InterruptedException {
        LimiterRegistry first = registry(store(TestRedis.port(), RedisBucketStore.OnFailure.LOCAL), 10L, null);
        LimiterRegistry second = registry(store(TestRedis.port(), RedisBucketStore.OnFailure.LOCAL), 10L, null);
        assertThat(admitted(List.of(first, second), 20)).isEqualTo(10);
        this.clock.advance(Duration.ofSeconds(30));
        assertThat(admitted(List.of(first, second), 20)).isEqualTo(5);
    }

    @Test
    void settlementRefundsAndOverdrawsTheSharedBucket() throws InterruptedException {
        LimiterRegistry first = registry(store(TestRedis.port(), RedisBucketStore.OnFailure.LOCAL), null, 1000L);
        LimiterRegistry second = registry(store(TestRedis.port(), RedisBucketStore.OnFailure.LOCAL), null, 1000L);
        Permit permit = first.limiter("anthropic", "opus").acquire(request(600));
        assertThat(inputTokens(first)).isEqualTo(400);
        // sent without waiting: the levels are those of Redis's answer
        permit.settle(100, 0);
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(inputTokens(first)).isEqualTo(900));
        permit.settle(1500, 0);
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(inputTokens(first)).isEqualTo(-500));
        assertThatExceptionOfType(AdmissionTimeoutException.class)
            .isThrownBy(() -> second.limiter("anthropic", "opus").acquire(request(1)));
        assertThat(inputTokens(second)).isEqualTo(-500);
    }

    @Test
    void bucketOperationsWorkOnTheSharedBucket() {
        TokenBucket bucket = store(TestRedis.port(), RedisBucketStore.OnFailure.LOCAL).bucket("k", 600);
        TokenBucket other = store(TestRedis.port(), RedisBucketStore.OnFailure.LOCAL).bucket("k", 600);
        assertThat(bucket.capacity()).isEqualTo(600);
        assertThat(bucket.availableTokens()).as("before any answer, as an absent bucket").isEqualTo(600);
        assertThat(bucket.tryConsume(600)).isTrue();
        assertThat(bucket.availableTokens()).isZero();
        assertThat(other.tryConsume(1)).isFalse();
        // what the last answer said, refilled since
        assertThat(other.nanosToWaitFor(10)).isCloseTo(Duration.ofSeconds(1).toNanos(), within(1_000_000L));
        assertThat(other.nanosToWaitFor(601)).isEqualTo(Long.MAX_VALUE);
        this.clock.advance(Duration.ofSeconds(30));
        assertThat(other.availableTokens()).isEqualTo(300);
        // changes are sent without waiting
        other.forceConsume(400);
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(other.availableTokens()).isEqualTo(-100));
        assertThat(bucket.tryConsume(1)).isFalse();
        assertThat(bucket.availableTokens()).isEqualTo(-100);
        bucket.refund(5000);
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(bucket.availableTokens()).isEqualTo(600));
        other.limitTo(250);
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(other.availableTokens()).isEqualTo(250));
        assertThat(tokensInRedis("k")).isEqualTo(250);
    }

    @Test
    void theProvidersBurstLearnedByOneInstanceHoldsTheSharedBucket() {
        RedisBucketStore first = store(TestRedis.port(), RedisBucketStore.OnFailure.LOCAL);
        RedisBucketStore second = store(TestRedis.port(), RedisBucketStore.OnFailure.LOCAL);
        TokenBucket bucket = first.bucket("k", 600);
        TokenBucket other = second.bucket("k", 600);
        bucket.limitBurst(200);
        assertThat(bucket.burstCapacity()).isEqualTo(200);
        // sent at once, without waiting
        await().atMost(PATIENCE).until(() -> "200".equals(fieldInRedis("k", "b")));
        // the other instance learned nothing: the shared bucket holds 200 all the same
        assertThat(other.tryConsume(201)).isFalse();
        assertThat(other.burstCapacity()).as("as Redis's answer said").isEqualTo(200);
        assertThat(other.nanosToWaitFor(201)).isEqualTo(Long.MAX_VALUE);
        assertThat(other.tryConsume(200)).isTrue();
        this.clock.advance(Duration.ofMinutes(1));
        // refilled at 600 a minute, up to the burst
        assertThat(other.availableTokens()).isEqualTo(200);
        assertThat(bucket.tryConsume(150)).isTrue();
        assertThat(other.tryConsume(51)).isFalse();
        // limits configured anew (a newer version) forget it once nobody sends it
        bucket.limitBurst(600);
        this.clock.advance(Duration.ofMillis(1));
        first.bucket("k", 1_200);
        await().atMost(PATIENCE).until(() -> "0".equals(fieldInRedis("k", "b")));
        this.clock.advance(Duration.ofMinutes(1));
        assertThat(other.tryConsume(1_000)).isTrue();
        assertThat(other.burstCapacity()).isEqualTo(600);
    }

    @Test
    void anInstanceWhoseClockIsMinutesAheadNeitherFreezesNorSpeedsUpTheSharedRefill() {
        FakeClock ahead = new FakeClock(START.plus(Duration.ofMinutes(10)));
        RedisBucketStore skewed = new RedisBucketStore(client(TestRedis.port()), this.prefix,
                RedisBucketStore.OnFailure.LOCAL, TIMEOUT, RETRY, ahead, this.clock);
        this.closeables.add(skewed);
        TokenBucket bucket = store(TestRedis.port(), RedisBucketStore.OnFailure.LOCAL).bucket("k", 600);
        TokenBucket early = skewed.bucket("k", 600);
        assertThat(bucket.tryConsume(600)).isTrue();
        // ten minutes ahead on its own clock, but not on the server's: nothing refilled
        assertThat(early.tryConsume(5)).as("sped up").isFalse();
        this.clock.advance(Duration.ofSeconds(1));
        ahead.advance(Duration.ofSeconds(1));
        // the skewed instance asked last: a second later, a second's refill for the
        // others
        assertThat(bucket.tryConsume(10)).as("frozen").isTrue();
        assertThat(early.tryConsume(5)).isFalse();
    }

    @Test
    void theSharedBucketsRunOnTheRedisServersTime() {
        // instances a year apart on their own clocks: only the server's time counts
        FakeClock yearAhead = new FakeClock(this.clock.instant().plus(Duration.ofDays(365)));
        RedisBucketStore behind = new RedisBucketStore(client(TestRedis.port()), this.prefix,
                RedisBucketStore.OnFailure.LOCAL, TIMEOUT, RETRY, this.clock);
        RedisBucketStore ahead = new RedisBucketStore(client(TestRedis.port()), this.prefix,
                RedisBucketStore.OnFailure.LOCAL, TIMEOUT, RETRY, yearAhead);
        this.closeables.add(behind);
        this.closeables.add(ahead);
        assertThat(behind.bucket("k", 60).tryConsume(60)).isTrue();
        // 30 s of the server's time to refill that much
        assertThat(ahead.bucket("k", 60).tryConsume(30)).isFalse();
        try (StatefulRedisConnection<String, String> connection = client(TestRedis.port()).connect()) {
            List<String> time = connection.sync().time();
            long serverMicros = Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
            String stamp = fieldInRedis("k", "ts");
            assertThat(stamp).isNotNull();
            assertThat(Long.parseLong(stamp)).isBetween(serverMicros - PATIENCE.toNanos() / 1000, serverMicros);
        }
    }

    @Test
    void theLocalBucketStandingInForAnUnreachableRedisIsHeldAtTheBurstToo() {
        TokenBucket bucket = store(1, RedisBucketStore.OnFailure.LOCAL).bucket("k", 600);
        bucket.limitBurst(200);
        assertThat(bucket.tryConsume(201)).isFalse();
        assertThat(bucket.tryConsume(200)).isTrue();
        this.clock.advance(Duration.ofMinutes(1));
        assertThat(bucket.availableTokens()).isEqualTo(200);
    }

    @Test
    void keysCarryThePrefixAndExpireOnceTheBucketWouldBeFull() {
        store(TestRedis.port(), RedisBucketStore.OnFailure.LOCAL).bucket("anthropic:opus:requests", 60).tryConsume(30);
        try (StatefulRedisConnection<String, String> connection = client(TestRedis.port()).connect()) {
            String key = this.prefix + ":anthropic:opus:requests";
            assertThat(connection.sync().exists(key)).isEqualTo(1);
            // 30 s to refill, plus 10 s.
            assertThat(connection.sync().pttl(key)).isBetween(35_000L, 41_000L);
        }
    }

    @Test
    void aNewLimitSetOnOneInstanceGovernsTheSharedBucket() {
        RedisBucketStore first = store(TestRedis.port(), RedisBucketStore.OnFailure.LOCAL);
        RedisBucketStore second = store(TestRedis.port(), RedisBucketStore.OnFailure.LOCAL);
        TokenBucket bucket = first.bucket("k", 10);
        TokenBucket other = second.bucket("k", 10);
        assertThat(bucket.tryConsume(10)).isTrue();
        this.clock.advance(Duration.ofMillis(1));
        assertThat(first.bucket("k", 20)).isSameAs(bucket);
        assertThat(bucket.capacity()).isEqualTo(20);
        assertThat(bucket.availableTokens()).isEqualTo(0);
        // sent at once, without waiting
        await().atMost(PATIENCE).until(() -> "20".equals(fieldInRedis("k", "c")));
        this.clock.advance(Duration.ofSeconds(45));
        // Refilled at 20 a minute (not 10), whichever instance asks.
        assertThat(other.tryConsume(16)).isFalse();
        assertThat(other.tryConsume(15)).isTrue();
    }

    @Test
    void runtimeLimitChangeOfOneLimiterReachesTheOtherInstance() throws InterruptedException {
        LimiterRegistry first = registry(store(TestRedis.port(), RedisBucketStore.OnFailure.LOCAL), 10L, null);
        LimiterRegistry second = registry(store(TestRedis.port(), RedisBucketStore.OnFailure.LOCAL), 10L, null);
        this.clock.advance(Duration.ofMillis(1));
        first.limiter("anthropic", "opus").updateLimits(new ModelLimits(4L, null, null, null));
        // sent at once, without waiting
        await().atMost(PATIENCE).until(() -> "4".equals(fieldInRedis("{anthropic:opus}:requests", "c")));
        assertThat(admitted(List.of(second, first), 10)).isEqualTo(4);
    }

    @Test
    void withOnFailureLocalAndRedisUnreachableCallsAreAdmittedFromLocalBuckets(CapturedOutput output)
            throws InterruptedException {
        RedisBucketStore store = store(1, RedisBucketStore.OnFailure.LOCAL);
        LimiterRegistry registry = registry(store, 10L, null);
        long start = System.nanoTime();
        assertThat(admitted(List.of(registry), 15)).isEqualTo(10);
        this.clock.advance(RETRY.plusSeconds(1));
        assertThat(admitted(List.of(registry), 15)).isEqualTo(0);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(PATIENCE);
        assertThat(store.isUnavailable()).isTrue();
        assertThat(output.getAll().split("Redis bucket store unavailable", -1)).hasSize(2);
    }

    @Test
    void withOnFailureRejectAndRedisUnreachableAdmissionFailsNamingClientAndModel() {
        LimiterRegistry registry = registry(store(1, RedisBucketStore.OnFailure.REJECT), 10L, null);
        ModelLimiter limiter = registry.limiter("anthropic", "opus");
        assertThatExceptionOfType(SharedStoreUnavailableException.class).isThrownBy(() -> limiter.acquire(request(0)))
            .withMessageContaining("client 'anthropic', model 'opus'")
            .withMessageContaining("unavailable")
            .satisfies((ex) -> assertThat(ex.getRetryAfter()).isEqualTo(RETRY))
            .withCauseInstanceOf(BucketStoreUnavailableException.class);
        assertThat(limiter.state().queued().normal()).isZero();
    }

    @Test
    void goesBackToRedisWhenItAnswersAgain(CapturedOutput output) throws Exception {
        int port = TcpForwarder.freePort();
        TcpForwarder forwarder = new TcpForwarder(port, TestRedis.port());
        this.closeables.add(forwarder);
        RedisBucketStore store = store(port, RedisBucketStore.OnFailure.LOCAL);
        TokenBucket bucket = store.bucket("k", 100);
        assertThat(bucket.tryConsume(10)).isTrue();
        assertThat(tokensInRedis("k")).isNull();
        forwarder.start();
        assertThat(bucket.tryConsume(10)).as("still backing off").isTrue();
        assertThat(tokensInRedis("k")).isNull();
        this.clock.advance(RETRY);
        assertThat(bucket.tryConsume(10)).isTrue();
        assertThat(tokensInRedis("k")).isEqualTo(90);
        assertThat(store.isUnavailable()).isFalse();
        assertThat(output.getAll()).contains("Redis bucket store answers again");
        // Connection lost: local buckets at once, then Redis again once Lettuce has
        // reconnected.
        forwarder.stop();
        assertThat(bucket.tryConsume(5)).isTrue();
        assertThat(store.isUnavailable()).isTrue();
        // The local bucket: 75 and a little refill.
        assertThat(bucket.availableTokens()).isBetween(75L, 89L);
        forwarder.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (store.isUnavailable() && System.nanoTime() < deadline) {
            Thread.sleep(10);
            this.clock.advance(RETRY);
            bucket.tryConsume(1);
        }
        assertThat(store.isUnavailable()).isFalse();
        long before = tokensInRedis("k");
        assertThat(bucket.tryConsume(5)).isTrue();
        assertThat(tokensInRedis("k")).isEqualTo(before - 5);
        assertThat(bucket.availableTokens()).isEqualTo(before - 5);
    }

    /** What Redis holds in a bucket, as of its last change. */
    private @Nullable Long tokensInRedis(String key) {
        String tokens = fieldInRedis(key, "t");
        return (tokens != null) ? (long) Math.floor(Double.parseDouble(tokens)) : null;
    }

    private @Nullable String fieldInRedis(String key, String field) {
        try (StatefulRedisConnection<String, String> connection = client(TestRedis.port()).connect()) {
            return connection.sync().hget(this.prefix + ":" + key, field);
        }
    }

    @Test
    void aSettlementGoesToTheStoreTheReservationWasTakenFrom() throws Exception {
        int port = TcpForwarder.freePort();
        TcpForwarder forwarder = new TcpForwarder(port, TestRedis.port());
        this.closeables.add(forwarder);
        LimiterRegistry registry = registry(store(port, RedisBucketStore.OnFailure.LOCAL), null, 1000L);
        ModelLimiter limiter = registry.limiter("anthropic", "opus");
        // Redis unreachable: served from the local bucket
        Permit local = limiter.acquire(request(600));
        forwarder.start();
        this.clock.advance(RETRY);
        Permit shared = limiter.acquire(request(100));
        assertThat(tokensInRedis("{anthropic:opus}:input-tokens")).isEqualTo(900);
        // Redis answers again, but what the local bucket reserved goes back to it
        local.settle(0, 0);
        Thread.sleep(300);
        assertThat(tokensInRedis("{anthropic:opus}:input-tokens")).isEqualTo(900);
        shared.settle(50, 0);
        await().atMost(PATIENCE)
            .untilAsserted(() -> assertThat(tokensInRedis("{anthropic:opus}:input-tokens")).isEqualTo(950));
    }

    private int admitted(List<LimiterRegistry> registries, int attempts) throws InterruptedException {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            try {
                registries.get(i % registries.size())
                    .limiter("anthropic", "opus")
                    .acquire(request(0))
                    .release(Permit.Outcome.IGNORED);
                admitted++;
            }
            catch (AdmissionTimeoutException ex) {
                // not admitted now
            }
        }
        return admitted;
    }

    private static long inputTokens(LimiterRegistry registry) {
        return registry.limiter("anthropic", "opus").state().available().inputTokens();
    }

    private static AdmissionRequest request(long inputTokens) {
        return new AdmissionRequest(Priority.NORMAL, null, inputTokens, 0, Duration.ZERO);
    }

    private LimiterRegistry registry(BucketStore store, Long rpm, Long itpm) {
        return new LimiterRegistry(
                Map.of("anthropic", new ClientLimits(null, Map.of("opus", new ModelLimits(rpm, itpm, null, null)))),
                100, Duration.ZERO, (tenant) -> null, store, this.clock);
    }

    private RedisBucketStore store(int port, RedisBucketStore.OnFailure onFailure) {
        RedisBucketStore store = new RedisBucketStore(client(port), this.prefix, onFailure, TIMEOUT, RETRY, this.clock,
                this.clock);
        this.closeables.add(store);
        return store;
    }

    private RedisClient client(int port) {
        RedisClient client = RedisClient.create(
                RedisURI.builder().withHost(TestRedis.HOST).withPort(port).withTimeout(Duration.ofSeconds(2)).build());
        this.clients.add(client);
        return client;
    }

}
