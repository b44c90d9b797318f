package io.github.llmthrottle.store.redis;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.limit.TestRedis;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.routing.CircuitSettings;
import io.github.llmthrottle.routing.CircuitState;
import io.github.llmthrottle.routing.ModelCircuit;
import io.github.llmthrottle.routing.ModelCircuit.Permission;
import io.github.llmthrottle.time.FakeClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Circuits shared through {@link RedisCircuitStore}: each store with its own client
 * stands for an instance; a fake clock stands in for the server's time and the
 * instances'.
 */
class SharedCircuitTests {

    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private static final CircuitSettings SETTINGS = new CircuitSettings(true, 2, Duration.ofSeconds(30), 2);

    private final FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));

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
    void aCircuitOpenedByOneInstanceRefusesOnAnother() {
        ModelCircuit first = circuit(TestRedis.port());
        ModelCircuit second = circuit(TestRedis.port());
        second.acquire().record(Outcome.SUCCESS);
        open(first);
        // the other instance learns it at its next reading of the circuit
        awaitState(second, CircuitState.OPEN);
        assertThat(second.isCallPermitted()).isFalse();
        assertThatExceptionOfType(CircuitOpenException.class).isThrownBy(second::acquire)
            .satisfies((ex) -> assertThat(ex.getRetryAfter()).isPositive().isLessThanOrEqualTo(SETTINGS.openWait()));
        // a third instance, which never read it, is refused at its first call
        assertThatExceptionOfType(CircuitOpenException.class).isThrownBy(circuit(TestRedis.port())::acquire);
    }

    @Test
    void failuresOfSeveralInstancesCountTogether() {
        ModelCircuit first = circuit(TestRedis.port());
        ModelCircuit second = circuit(TestRedis.port());
        fail(first);
        fail(second);
        awaitState(first, CircuitState.OPEN);
        // a success anywhere resets the count: one more failure does not open it again
        this.clock.advance(SETTINGS.openWait());
        Permission probe = second.acquire();
        Permission other = first.acquire();
        probe.record(Outcome.SUCCESS);
        other.record(Outcome.SUCCESS);
        awaitState(second, CircuitState.CLOSED);
        awaitState(first, CircuitState.CLOSED);
        fail(first);
        awaitFailures(second, 1);
        second.acquire().record(Outcome.SUCCESS);
        awaitFailures(first, 0);
        fail(first);
        awaitFailures(second, 1);
        assertThat(first.state()).isEqualTo(CircuitState.CLOSED);
    }

    @Test
    void halfOpenProbesAreLimitedAcrossThreeInstances() {
        List<ModelCircuit> fleet = List.of(circuit(TestRedis.port()), circuit(TestRedis.port()),
                circuit(TestRedis.port()));
        open(fleet.get(0));
        this.clock.advance(SETTINGS.openWait());
        List<Permission> probes = new ArrayList<>();
        int refused = 0;
        for (int round = 0; round < 3; round++) {
            for (ModelCircuit circuit : fleet) {
                try {
                    Permission permission = circuit.acquire();
                    assertThat(permission.isProbe()).isTrue();
                    probes.add(permission);
                }
                catch (CircuitOpenException ex) {
                    refused++;
                }
            }
        }
        assertThat(probes).hasSize(SETTINGS.halfOpenProbes());
        assertThat(refused).isEqualTo(9 - SETTINGS.halfOpenProbes());
        // a probe ending without a verdict frees its place for one more, anywhere
        probes.get(0).release();
        Permission next = await().atMost(PATIENCE).until(() -> tryAcquire(fleet.get(2)), (p) -> p != null);
        assertThat(next.isProbe()).isTrue();
        next.record(Outcome.SUCCESS);
        probes.get(1).record(Outcome.SUCCESS);
        awaitState(fleet.get(0), CircuitState.CLOSED);
    }

    @Test
    void aProbeWhoseInstanceNeverAnswersGivesItsPlaceBackAfterItsHold() {
        ModelCircuit first = circuit(TestRedis.port());
        ModelCircuit second = circuit(TestRedis.port());
        open(first);
        this.clock.advance(SETTINGS.openWait());
        first.acquire();
        first.acquire();
        // both probes taken and never recorded (their instance crashed)
        assertThatExceptionOfType(CircuitOpenException.class).isThrownBy(second::acquire);
        this.clock.advance(Duration.ofMinutes(1));
        assertThat(second.acquire().isProbe()).isTrue();
    }

    @Test
    void aFailingProbeOpensTheCircuitOnEveryInstance() {
        ModelCircuit first = circuit(TestRedis.port());
        ModelCircuit second = circuit(TestRedis.port());
        open(first);
        this.clock.advance(SETTINGS.openWait());
        second.acquire().record(Outcome.SERVER_ERROR);
        awaitState(second, CircuitState.OPEN);
        assertThatExceptionOfType(CircuitOpenException.class).isThrownBy(first::acquire);
    }

    @Test
    void withoutRedisEachInstanceFallsBackToItsOwnCircuit() {
        ModelCircuit shared = circuit(TestRedis.port());
        ModelCircuit alone = circuit(unusedPort());
        fail(alone);
        fail(alone);
        assertThat(alone.state()).isEqualTo(CircuitState.OPEN);
        assertThatExceptionOfType(CircuitOpenException.class).isThrownBy(alone::acquire);
        // nothing of it reached the shared circuit
        shared.acquire().record(Outcome.SUCCESS);
        assertThat(shared.state()).isEqualTo(CircuitState.CLOSED);
        this.clock.advance(SETTINGS.openWait());
        assertThat(alone.acquire().isProbe()).isTrue();
    }

    @Test
    void aDisabledCircuitIsLocalAndNeverOpens() {
        ModelCircuit circuit = new RedisCircuitStore(store(TestRedis.port())).circuit("anthropic", "opus",
                SETTINGS.withEnabled(false), this.clock);
        for (int i = 0; i < 5; i++) {
            fail(circuit);
        }
        assertThat(circuit.state()).isEqualTo(CircuitState.CLOSED);
        try (StatefulRedisConnection<String, String> connection = client(TestRedis.port()).connect()) {
            assertThat(connection.sync().keys(this.prefix + ":*")).isEmpty();
        }
    }

    private void awaitFailures(ModelCircuit circuit, int failures) {
        await().atMost(PATIENCE).until(() -> {
            this.clock.advance(Duration.ofMillis(RedisCircuit.REFRESH_AFTER_MILLIS + 1));
            return circuit.consecutiveFailures() == failures;
        });
    }

    /** Opens the circuit through {@code circuit}, and waits until it has read so. */
    private void open(ModelCircuit circuit) {
        fail(circuit);
        fail(circuit);
        awaitState(circuit, CircuitState.OPEN);
    }

    /**
     * Waits until {@code circuit} shows {@code state}, moving the clock on so that each
     * look reads Redis again (less than the open wait in all).
     */
    private void awaitState(ModelCircuit circuit, CircuitState state) {
        await().atMost(PATIENCE).until(() -> {
            this.clock.advance(Duration.ofMillis(RedisCircuit.REFRESH_AFTER_MILLIS + 1));
            return circuit.state() == state;
        });
    }

    private static void fail(ModelCircuit circuit) {
        circuit.acquire().record(Outcome.OVERLOADED);
    }

    private static Permission tryAcquire(ModelCircuit circuit) {
        try {
            return circuit.acquire();
        }
        catch (CircuitOpenException ex) {
            return null;
        }
    }

    private ModelCircuit circuit(int port) {
        return new RedisCircuitStore(store(port)).circuit("anthropic", "opus", SETTINGS, this.clock);
    }

    private RedisBucketStore store(int port) {
        RedisClient client = client(port);
        RedisBucketStore store = new RedisBucketStore(client, this.prefix, RedisBucketStore.OnFailure.LOCAL,
                Duration.ofSeconds(2), Duration.ofMinutes(10), this.clock, this.clock);
        this.closeables.add(store);
        return store;
    }

    private RedisClient client(int port) {
        RedisClient client = RedisClient.create(
                RedisURI.builder().withHost(TestRedis.HOST).withPort(port).withTimeout(Duration.ofSeconds(2)).build());
        this.clients.add(client);
        return client;
    }

    private static int unusedPort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
    }

}
