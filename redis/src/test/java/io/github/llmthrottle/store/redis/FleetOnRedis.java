package io.github.llmthrottle.store.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.llmthrottle.limit.ClientLimits;
import io.github.llmthrottle.limit.LimiterOptions;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.limit.TestRedis;
import io.github.llmthrottle.time.FakeClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.jspecify.annotations.Nullable;

/**
 * Instances of one fleet on the test Redis: each {@link #limiter} is the model
 * {@code anthropic/opus} of a limiter registry of its own, on its own store and client,
 * under a key prefix of the test's; one fake clock stands in for the server's time and
 * the instances'. {@link #close()} closes them and deletes their keys.
 */
final class FleetOnRedis implements AutoCloseable {

    final FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));

    final String prefix = "llm-throttle-test-" + UUID.randomUUID();

    private final List<AutoCloseable> closeables = new ArrayList<>();

    private final List<RedisClient> clients = new ArrayList<>();

    /**
     * One more instance, limited to {@code requestsPerMinute} (none when {@code null}),
     * rejecting without Redis.
     */
    ModelLimiter limiter(@Nullable Long requestsPerMinute) {
        return limiter(requestsPerMinute, store());
    }

    /** One more instance on {@code store}, as {@link #limiter(Long)} makes it. */
    ModelLimiter limiter(@Nullable Long requestsPerMinute, RedisBucketStore store) {
        LimiterRegistry registry = new LimiterRegistry(
                Map.of("anthropic",
                        new ClientLimits(null, Map.of("opus", new ModelLimits(requestsPerMinute, null, null, null)))),
                100, Duration.ZERO, (tenant) -> null, store, this.clock, LimiterOptions.WITHOUT_SLOW_START);
        return registry.limiter("anthropic", "opus");
    }

    /** The store of one more instance, rejecting without Redis. */
    RedisBucketStore store() {
        return store(RedisBucketStore.OnFailure.REJECT);
    }

    /** The store of one more instance, doing {@code onFailure} without Redis. */
    RedisBucketStore store(RedisBucketStore.OnFailure onFailure) {
        RedisBucketStore store = new RedisBucketStore(client(), this.prefix, onFailure, Duration.ofSeconds(2),
                Duration.ofSeconds(2), this.clock, this.clock);
        this.closeables.add(store);
        return store;
    }

    RedisClient client() {
        RedisClient client = RedisClient.create(RedisURI.builder()
            .withHost(TestRedis.HOST)
            .withPort(TestRedis.port())
            .withTimeout(Duration.ofSeconds(2))
            .build());
        this.clients.add(client);
        return client;
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable closeable : this.closeables) {
            closeable.close();
        }
        TestRedis.deleteKeys(this.prefix);
        this.clients.forEach(RedisClient::shutdown);
    }

}
