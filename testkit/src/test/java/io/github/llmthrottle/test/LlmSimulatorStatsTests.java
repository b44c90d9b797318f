package io.github.llmthrottle.test;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static io.github.llmthrottle.test.SimClient.anthropic;
import static io.github.llmthrottle.test.SimClient.messages;
import static io.github.llmthrottle.test.SimClient.textOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

class LlmSimulatorStatsTests {

    private static final String OPUS = "claude-opus-4-7";

    private final ManualClock clock = ManualClock.at("2023-09-29T16:26:37Z");

    private final LlmSimulator simulator = LlmSimulator.builder()
        .clock(this.clock)
        .noLatency()
        .model(OPUS, ModelLimits.of(4, 0, 0))
        .start();

    @AfterEach
    void close() {
        this.simulator.close();
    }

    @Test
    void statsCountEveryOutcomeAndTheAdmittedTokens() {
        this.simulator.script(OPUS, Fault.status(429), Fault.status(529), Fault.status(500), Fault.connectionReset());
        for (int i = 0; i < 4; i++) {
            catchThrowable(() -> anthropic(this.simulator, messages(OPUS, 50, textOf(10))));
        }
        anthropic(this.simulator, messages(OPUS, 50, textOf(10)));
        this.clock.advance(Duration.ofSeconds(2));
        anthropic(this.simulator, messages(OPUS, 50, textOf(30)));
        anthropic(this.simulator, messages("haiku", 50, textOf(5)));
        anthropic(this.simulator, "not json");
        SimulatorStats opus = this.simulator.stats(OPUS);
        assertThat(opus.attempts()).isEqualTo(6);
        assertThat(opus.successes()).isEqualTo(2);
        assertThat(opus.rateLimited()).isEqualTo(1);
        assertThat(opus.overloaded()).isEqualTo(1);
        assertThat(opus.otherErrors()).isEqualTo(1);
        assertThat(opus.connectionResets()).isEqualTo(1);
        assertThat(opus.admitted()).isEqualTo(2);
        assertThat(opus.inputTokens()).isEqualTo(40);
        assertThat(opus.outputTokens()).isEqualTo(100);
        assertThat(opus.inputTokensPerSecond()).containsExactly(
                org.assertj.core.api.Assertions.entry(Instant.parse("2023-09-29T16:26:37Z"), 10L),
                org.assertj.core.api.Assertions.entry(Instant.parse("2023-09-29T16:26:39Z"), 30L));
        assertThat(
                opus.inputTokensBetween(Instant.parse("2023-09-29T16:26:38Z"), Instant.parse("2023-09-29T16:27:00Z")))
            .isEqualTo(30);
        SimulatorStats all = this.simulator.stats();
        assertThat(all.attempts()).isEqualTo(8);
        assertThat(all.otherErrors()).isEqualTo(2);
        assertThat(all.inputTokens()).isEqualTo(45);
        assertThat(all.outputTokensBetween(Instant.EPOCH, Instant.MAX)).isEqualTo(150);
        assertThat(all.maxConcurrent()).isEqualTo(1);
        assertThat(this.simulator.stats("never-used").attempts()).isZero();
    }

    @Test
    void resetStatsZeroesTheCounters() {
        anthropic(this.simulator, messages(OPUS, 50, "hi"));
        this.simulator.resetStats();
        SimulatorStats stats = this.simulator.stats();
        assertThat(stats.attempts()).isZero();
        assertThat(stats.inputTokensPerSecond()).isEmpty();
        assertThat(this.simulator.stats(OPUS).successes()).isZero();
    }

    @Test
    void resetRestoresTheBuiltConfiguration() {
        this.simulator.setLimits(OPUS, ModelLimits.of(1, 0, 0)).script(OPUS, Fault.status(500)).setHeader("x-a", "b");
        anthropic(this.simulator, messages(OPUS, 50, "hi"));
        this.simulator.reset();
        assertThat(this.simulator.limitsFor(OPUS)).isEqualTo(ModelLimits.of(4, 0, 0));
        assertThat(this.simulator.pendingScript(OPUS)).isZero();
        assertThat(this.simulator.levels("", OPUS).requests()).isEqualTo(4);
        assertThat(this.simulator.stats().attempts()).isZero();
        assertThat(SimClient.header(anthropic(this.simulator, messages(OPUS, 50, "hi")), "x-a")).isNull();
    }

}
