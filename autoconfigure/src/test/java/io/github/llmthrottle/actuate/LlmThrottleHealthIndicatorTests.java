package io.github.llmthrottle.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ThrottleSettings;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.routing.CircuitState;
import io.github.llmthrottle.time.FakeClock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the health indicator turns a model's limiter, circuit and the provider's recent
 * answers into one state.
 */
class LlmThrottleHealthIndicatorTests {

    private final FakeClock clock = FakeClock.at("2026-08-20T10:00:00Z");

    private final ProviderSignals signals = new ProviderSignals(this.clock);

    private final LlmThrottleHealthIndicator indicator = new LlmThrottleHealthIndicator(new LlmThrottleRegistry(
            new ThrottleSettings(Map.of(), 10, Duration.ofSeconds(1), null, Map.of()), (client) -> {
                throw new IllegalStateException("no clients");
            }), this.signals, CircuitStateSource.DEFAULT, Duration.ofMinutes(1), this.clock);

    @Test
    void aQuietModelIsOk() {
        assertThat(state(idle(), CircuitState.CLOSED)).isEqualTo(ModelHealthState.OK);
    }

    @Test
    void waitingCallsMeanQueueing() {
        assertThat(state(limiter(null, 2), CircuitState.CLOSED)).isEqualTo(ModelHealthState.QUEUEING);
    }

    @Test
    void aRecent429OrAPauseMeansProviderThrottling() {
        attempt(Outcome.RATE_LIMITED, 429);
        assertThat(state(idle(), CircuitState.CLOSED)).isEqualTo(ModelHealthState.PROVIDER_THROTTLING);
        this.clock.advance(Duration.ofSeconds(61));
        assertThat(state(idle(), CircuitState.CLOSED)).isEqualTo(ModelHealthState.OK);
        assertThat(state(limiter(this.clock.instant().plusSeconds(5), 0), CircuitState.CLOSED))
            .isEqualTo(ModelHealthState.PROVIDER_THROTTLING);
    }

    @Test
    void aRecent529MeansProviderOverloaded() {
        attempt(Outcome.OVERLOADED, 529);
        assertThat(state(limiter(null, 3), CircuitState.CLOSED)).isEqualTo(ModelHealthState.PROVIDER_OVERLOADED);
    }

    @Test
    void anOpenOrHalfOpenCircuitWinsOverThrottling() {
        attempt(Outcome.RATE_LIMITED, 429);
        assertThat(state(idle(), CircuitState.OPEN)).isEqualTo(ModelHealthState.CIRCUIT_OPEN);
        assertThat(state(idle(), CircuitState.HALF_OPEN)).isEqualTo(ModelHealthState.CIRCUIT_OPEN);
    }

    @Test
    void rejectedCredentialsShowUntilACallSucceeds() {
        attempt(Outcome.CLIENT_ERROR, 401);
        assertThat(state(idle(), CircuitState.OPEN)).isEqualTo(ModelHealthState.CREDENTIALS_REJECTED);
        this.clock.advance(Duration.ofHours(1));
        assertThat(state(idle(), CircuitState.CLOSED)).isEqualTo(ModelHealthState.CREDENTIALS_REJECTED);
        this.clock.advance(Duration.ofSeconds(1));
        attempt(Outcome.SUCCESS, 200);
        assertThat(state(idle(), CircuitState.CLOSED)).isEqualTo(ModelHealthState.OK);
    }

    @Test
    void anExhaustedQuotaWinsOverThrottlingButNotOverAnOpenCircuit() {
        attempt(Outcome.RATE_LIMITED, 429);
        assertThat(this.indicator.state(limiter(null, 2), this.signals.of("anthropic", "opus"), CircuitState.CLOSED,
                true, this.clock.instant()))
            .isEqualTo(ModelHealthState.QUOTA_EXHAUSTED);
        assertThat(this.indicator.state(idle(), this.signals.of("anthropic", "opus"), CircuitState.OPEN, true,
                this.clock.instant()))
            .isEqualTo(ModelHealthState.CIRCUIT_OPEN);
    }

    @Test
    void healthIsUpEvenWithoutClients() {
        assertThat(this.indicator.health().getStatus().getCode()).isEqualTo("UP");
    }

    private void attempt(Outcome outcome, int status) {
        this.signals.onAttempt("anthropic", "opus", outcome, status, Duration.ZERO);
    }

    private ModelHealthState state(LimiterState limiter, CircuitState circuit) {
        return this.indicator.state(limiter, this.signals.of("anthropic", "opus"), circuit, false,
                this.clock.instant());
    }

    private static LimiterState idle() {
        return limiter(null, 0);
    }

    private static LimiterState limiter(@Nullable Instant pausedUntil, int queued) {
        return new LimiterState("anthropic", "opus", ModelLimits.UNLIMITED, ModelLimits.UNLIMITED, null,
                new LimiterState.Available(null, null, null, null), null, pausedUntil, 0, null,
                new LimiterState.Queued(0, queued, 0));
    }

}
