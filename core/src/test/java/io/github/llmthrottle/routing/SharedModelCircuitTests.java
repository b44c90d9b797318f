package io.github.llmthrottle.routing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.time.FakeClock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A {@link ModelCircuit} with a {@link SharedCircuit}: the shared state decides while it
 * answers, the local state machine while it does not.
 */
class SharedModelCircuitTests {

    private final FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z");

    private final FakeShared shared = new FakeShared();

    private final ModelCircuit circuit = new ModelCircuit("anthropic", "opus",
            new CircuitSettings(true, 2, Duration.ofSeconds(30), 1), this.clock, this.shared);

    @Test
    void theSharedCircuitGrantsAndHearsEveryOutcome() {
        this.shared.grant = new SharedCircuit.Grant(7, true, "probe-1");
        ModelCircuit.Permission permission = this.circuit.acquire();
        assertThat(permission.isProbe()).isTrue();
        permission.record(Outcome.OVERLOADED);
        permission.release();
        assertThat(this.shared.completed).containsExactly("probe-1:OVERLOADED");
        // the local state machine heard nothing
        this.shared.available = false;
        assertThat(this.circuit.consecutiveFailures()).isZero();
    }

    @Test
    void theSharedCircuitsRefusalIsTheCallersRefusal() {
        this.shared.refusal = new CircuitOpenException("anthropic", "opus", Duration.ofSeconds(12));
        assertThatExceptionOfType(CircuitOpenException.class).isThrownBy(this.circuit::acquire)
            .satisfies((ex) -> assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(12)));
    }

    @Test
    void theSharedViewIsWhatTheCircuitShows() {
        this.shared.view = new SharedCircuit.View(CircuitState.OPEN, 0, Duration.ofSeconds(9), false);
        assertThat(this.circuit.state()).isEqualTo(CircuitState.OPEN);
        assertThat(this.circuit.isCallPermitted()).isFalse();
        assertThat(this.circuit.remainingOpenTime()).isEqualTo(Duration.ofSeconds(9));
        this.shared.view = new SharedCircuit.View(CircuitState.HALF_OPEN, 0, null, true);
        assertThat(this.circuit.isCallPermitted()).isTrue();
        this.shared.view = new SharedCircuit.View(CircuitState.CLOSED, 1, null, false);
        assertThat(this.circuit.consecutiveFailures()).isEqualTo(1);
        assertThat(this.circuit.isCallPermitted()).isTrue();
    }

    @Test
    void withoutTheSharedCircuitTheLocalOneDecidesAndKeepsItsOutcomes() {
        this.shared.available = false;
        this.circuit.acquire().record(Outcome.SERVER_ERROR);
        this.circuit.acquire().record(Outcome.IO_ERROR);
        assertThat(this.circuit.state()).isEqualTo(CircuitState.OPEN);
        assertThatExceptionOfType(CircuitOpenException.class).isThrownBy(this.circuit::acquire);
        assertThat(this.shared.completed).isEmpty();
        // the shared circuit answers again: it decides
        this.shared.available = true;
        this.shared.grant = new SharedCircuit.Grant(1, false, "");
        this.shared.view = new SharedCircuit.View(CircuitState.CLOSED, 0, null, false);
        assertThat(this.circuit.state()).isEqualTo(CircuitState.CLOSED);
        this.circuit.acquire().record(Outcome.SUCCESS);
        assertThat(this.shared.completed).containsExactly(":SUCCESS");
    }

    /** A shared circuit whose answers the test sets. */
    private static final class FakeShared implements SharedCircuit {

        boolean available = true;

        SharedCircuit.@Nullable Grant grant;

        @Nullable CircuitOpenException refusal;

        SharedCircuit.@Nullable View view;

        final List<String> completed = new ArrayList<>();

        @Override
        public @Nullable Grant acquire() {
            if (!this.available) {
                return null;
            }
            if (this.refusal != null) {
                throw this.refusal;
            }
            return this.grant;
        }

        @Override
        public void complete(Grant grant, @Nullable Outcome outcome) {
            this.completed.add(grant.token() + ":" + outcome);
        }

        @Override
        public @Nullable View view() {
            return this.available ? this.view : null;
        }

    }

}
