package io.github.llmthrottle.routing;

import java.time.Duration;

import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The circuit of one model, on a fake clock.
 */
class ModelCircuitTests {

    private final FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z");

    private final ModelCircuit circuit = new ModelCircuit("anthropic", "claude-opus-4-7",
            new CircuitSettings(true, 3, Duration.ofSeconds(30), 2), this.clock);

    @Test
    void opensAfterTheThresholdOfConsecutiveFailures() {
        attempt(Outcome.OVERLOADED);
        attempt(Outcome.SERVER_ERROR);
        assertThat(this.circuit.state()).isEqualTo(CircuitState.CLOSED);
        attempt(Outcome.IO_ERROR);
        assertThat(this.circuit.state()).isEqualTo(CircuitState.OPEN);
        assertThat(this.circuit.isCallPermitted()).isFalse();
    }

    @Test
    void anAnswerThatIsNoFailureResetsTheCount() {
        attempt(Outcome.OVERLOADED);
        attempt(Outcome.OVERLOADED);
        attempt(Outcome.CLIENT_ERROR);
        attempt(Outcome.OVERLOADED);
        attempt(Outcome.OVERLOADED);
        assertThat(this.circuit.state()).isEqualTo(CircuitState.CLOSED);
        assertThat(this.circuit.consecutiveFailures()).isEqualTo(2);
    }

    @Test
    void rateLimitsNeitherCountNorReset() {
        attempt(Outcome.OVERLOADED);
        attempt(Outcome.RATE_LIMITED);
        attempt(Outcome.RATE_LIMITED);
        attempt(Outcome.OVERLOADED);
        assertThat(this.circuit.consecutiveFailures()).isEqualTo(2);
        attempt(Outcome.OVERLOADED);
        assertThat(this.circuit.state()).isEqualTo(CircuitState.OPEN);
    }

    @Test
    void anOpenCircuitFailsFastWithTheRestOfTheWait() {
        open();
        this.clock.advance(Duration.ofSeconds(10));
        assertThatExceptionOfType(CircuitOpenException.class).isThrownBy(this.circuit::acquire).satisfies((ex) -> {
            assertThat(ex.getClient()).isEqualTo("anthropic");
            assertThat(ex.getModel()).isEqualTo("claude-opus-4-7");
            assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(20));
        });
        assertThat(this.circuit.remainingOpenTime()).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void afterTheWaitItLetsTheConfiguredNumberOfProbesThrough() {
        open();
        this.clock.advance(Duration.ofSeconds(30));
        assertThat(this.circuit.state()).isEqualTo(CircuitState.HALF_OPEN);
        ModelCircuit.Permission first = this.circuit.acquire();
        ModelCircuit.Permission second = this.circuit.acquire();
        assertThat(first.isProbe()).isTrue();
        assertThat(this.circuit.isCallPermitted()).isFalse();
        assertThatExceptionOfType(CircuitOpenException.class).isThrownBy(this.circuit::acquire);
        first.record(Outcome.SUCCESS);
        assertThat(this.circuit.state()).isEqualTo(CircuitState.HALF_OPEN);
        second.record(Outcome.SUCCESS);
        assertThat(this.circuit.state()).isEqualTo(CircuitState.CLOSED);
        assertThat(this.circuit.consecutiveFailures()).isZero();
    }

    @Test
    void aFailedProbeOpensTheCircuitForANewWait() {
        open();
        this.clock.advance(Duration.ofSeconds(31));
        this.circuit.acquire().record(Outcome.OVERLOADED);
        assertThat(this.circuit.state()).isEqualTo(CircuitState.OPEN);
        assertThat(this.circuit.remainingOpenTime()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void aProbeWithoutAVerdictOnlyFreesItsPlace() {
        open();
        this.clock.advance(Duration.ofSeconds(30));
        this.circuit.acquire().release();
        this.circuit.acquire().record(Outcome.RATE_LIMITED);
        assertThat(this.circuit.state()).isEqualTo(CircuitState.HALF_OPEN);
        assertThat(this.circuit.isCallPermitted()).isTrue();
    }

    @Test
    void outcomesOfAttemptsStartedBeforeAChangeOfStateAreIgnored() {
        ModelCircuit.Permission late = this.circuit.acquire();
        open();
        this.clock.advance(Duration.ofSeconds(30));
        ModelCircuit.Permission probe = this.circuit.acquire();
        late.record(Outcome.OVERLOADED);
        assertThat(this.circuit.state()).isEqualTo(CircuitState.HALF_OPEN);
        probe.record(Outcome.SUCCESS);
        this.circuit.acquire().record(Outcome.SUCCESS);
        assertThat(this.circuit.state()).isEqualTo(CircuitState.CLOSED);
    }

    @Test
    void aPermissionCountsOnlyOnce() {
        ModelCircuit.Permission permission = this.circuit.acquire();
        permission.record(Outcome.OVERLOADED);
        permission.record(Outcome.OVERLOADED);
        permission.release();
        assertThat(this.circuit.consecutiveFailures()).isEqualTo(1);
    }

    @Test
    void aDisabledCircuitNeverOpens() {
        ModelCircuit disabled = new ModelCircuit("anthropic", "claude-opus-4-7",
                new CircuitSettings(false, 1, Duration.ofSeconds(30), 1), this.clock);
        for (int i = 0; i < 10; i++) {
            disabled.acquire().record(Outcome.OVERLOADED);
        }
        assertThat(disabled.state()).isEqualTo(CircuitState.CLOSED);
    }

    private void open() {
        for (int i = 0; i < 3; i++) {
            attempt(Outcome.OVERLOADED);
        }
        assertThat(this.circuit.state()).isEqualTo(CircuitState.OPEN);
    }

    private void attempt(Outcome outcome) {
        ModelCircuit.Permission permission = this.circuit.acquire();
        permission.record(outcome);
        permission.release();
    }

}
