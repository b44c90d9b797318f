package io.github.llmthrottle.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis stores behind a real Sentinel watching a master and its replica
 * ({@link LocalRedis}), through a Lettuce {@link RedisClient} on a Sentinel URI, as
 * Spring Boot builds it for {@code spring.data.redis.sentinel.*}: the master killed
 * mid-run fails over to the replica, and no call is lost.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisSentinelTests {

    @RegisterExtension
    static final LocalRedis sentinel = LocalRedis.sentinel();

    private final String prefix = "llm-throttle-sentinel-test-" + UUID.randomUUID();

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : this.closeables) {
            closeable.close();
        }
    }

    @Test
    @Order(Integer.MAX_VALUE) // last: the master it kills stays down for the class
    void aFailoverMidRunLosesNoCall() throws Exception {
        FleetLoad.assertNoCallLost(this::client, this.prefix, () -> {
            int master = sentinel.masterOf("any");
            sentinel.kill(master);
            sentinel.awaitFailover("any", master);
        });
    }

    @Test
    void bootsSentinelSettingsConnectTheStoresToTheMaster() {
        BootRedis
            .runner(this.prefix, "spring.data.redis.sentinel.master=" + LocalRedis.MASTER_NAME,
                    "spring.data.redis.sentinel.nodes=" + String.join(",", sentinel.nodes()))
            .run((context) -> {
                assertThat(context.getBean(LettuceConnectionFactory.class).getNativeClient())
                    .isInstanceOf(RedisClient.class);
                BootRedis.callOnce(context);
                try (StatefulRedisConnection<String, String> connection = client().connect()) {
                    assertThat(connection.sync().keys(this.prefix + ":*"))
                        .contains(this.prefix + ":{anthropic:opus}:requests")
                        .anyMatch((key) -> key.startsWith(this.prefix + ":{quota}:model:anthropic:opus:day:"));
                }
            });
    }

    private RedisClient client() {
        String[] address = sentinel.nodes().get(0).split(":");
        RedisURI uri = RedisURI.Builder.sentinel(address[0], Integer.parseInt(address[1]), LocalRedis.MASTER_NAME)
            .withTimeout(Duration.ofSeconds(2))
            .build();
        RedisClient client = RedisClient.create(uri);
        this.closeables.add(client::shutdown);
        return client;
    }

}
